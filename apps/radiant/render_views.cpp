#include "render_views.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "radiant/core/colour_map.hpp"
#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/image_io.hpp"

namespace radiant::app {
namespace {

namespace fs = std::filesystem;

bool names_a_folder(const std::string& out) {
    std::error_code ec;
    return fs::is_directory(out, ec) || out.ends_with('/') || !fs::path(out).has_extension();
}

std::string with_suffix(const std::string& path, const std::string& suffix, const std::string& ext) {
    const fs::path p(path);
    return (p.parent_path() / (p.stem().string() + suffix + ext)).string();
}

}  // namespace

std::vector<std::string> view_paths(const std::string& out, const std::vector<Camera>& cameras) {
    std::vector<std::string> names;
    for (const Camera& c : cameras) names.push_back(c.name);
    const std::vector<std::string> stems = unique_file_stems(names);
    std::vector<std::string> paths;
    if (names_a_folder(out)) {
        for (const std::string& s : stems) paths.push_back((fs::path(out) / (s + ".png")).string());
        return paths;
    }
    if (!is_image_extension(out))
        throw Error(fmt::format("-o {}: write .png, .jpg or .jpeg images, or name a folder", out));
    if (cameras.size() == 1) return {out};
    const fs::path p(out);
    for (const std::string& s : stems)
        paths.push_back((p.parent_path() / (p.stem().string() + "_" + s + p.extension().string())).string());
    return paths;
}

std::vector<std::string> render_views(Backend& backend, const std::vector<Camera>& cameras,
                                      const RenderSettings& settings, const std::string& out,
                                      const ViewOutputs& outputs) {
    const std::vector<std::string> paths = view_paths(out, cameras);
    std::vector<std::string> written;
    for (std::size_t i = 0; i < cameras.size(); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const RenderLayers r =
            backend.render_layers(cameras[i], settings, outputs.depth || outputs.median_depth);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        const std::string& path = paths[i];
        if (auto dir = fs::path(path).parent_path(); !dir.empty()) fs::create_directories(dir);
        write_image(path, to_u8(r.rgb), outputs.jpeg_quality);
        written.push_back(path);
        std::string extra;
        if (outputs.alpha) {
            written.push_back(with_suffix(path, "_alpha", ".png"));
            write_png(written.back(), to_u8(r.alpha));
            extra += ", alpha";
        }
        // A depth layer: a picture to look at and the float32 values to compute with.
        auto write_depth = [&](const Image<float>& depth, const char* suffix, const char* what) {
            written.push_back(with_suffix(path, suffix, ".png"));
            write_png(written.back(), depth_picture(depth, r.alpha));
            written.push_back(with_suffix(path, suffix, ".npy"));
            write_npy(written.back(), depth);
            extra += what;
        };
        if (outputs.depth) write_depth(r.depth, "_depth", ", depth");
        if (outputs.median_depth) write_depth(r.median_depth, "_median_depth", ", median depth");
        log_info("wrote {} ({}x{}{}, {:.1f} ms)", path, cameras[i].width, cameras[i].height, extra, ms);
    }
    return written;
}

std::vector<Camera> framing_orbit(const Scene& scene, int views, double elevation_deg, Vec3<double> up,
                                  double fov_y_deg, int width, int height) {
    const std::size_t n = scene.size();
    Vec3<double> centre{};
    std::vector<double> coord(n), dist(n);
    for (int k = 0; k < 3 && n > 0; ++k) {
        for (std::size_t i = 0; i < n; ++i) coord[i] = scene.means[3 * i + std::size_t(k)];
        std::nth_element(coord.begin(), coord.begin() + std::ptrdiff_t(n / 2), coord.end());
        centre[k] = coord[n / 2];
    }
    for (std::size_t i = 0; i < n; ++i) dist[i] = length(cast<double>(scene.mean(i)) - centre);
    double r90 = 1.0;
    if (n > 0) {
        std::nth_element(dist.begin(), dist.begin() + std::ptrdiff_t(9 * n / 10), dist.end());
        r90 = std::max(dist[9 * n / 10], 1e-3);
    }
    const double half_fov = 0.5 * fov_y_deg * 3.14159265358979 / 180.0;
    const double radius = 1.1 * r90 / std::sin(half_fov);
    std::vector<Camera> cams = orbit(centre, radius, elevation_deg, views, up, fov_y_deg, width, height);
    for (std::size_t i = 0; i < cams.size(); ++i) cams[i].name = fmt::format("{:03d}", i);
    return cams;
}

}  // namespace radiant::app
