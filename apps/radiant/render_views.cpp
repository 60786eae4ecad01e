#include "render_views.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "radiant/core/log.hpp"
#include "radiant/io/image_io.hpp"
#include "radiant/render/cpu/render_cpu.hpp"

namespace radiant::app {

std::string view_path(const std::string& out, std::size_t i, std::size_t n) {
    if (n == 1) return out;
    std::filesystem::path p(out);
    std::string ext = p.has_extension() ? p.extension().string() : ".png";
    return (p.parent_path() / fmt::format("{}_{:03d}{}", p.stem().string(), i, ext)).string();
}

std::vector<std::string> render_views(const Scene& scene, const std::vector<Camera>& cameras,
                                      const RenderSettings& settings, const std::string& out) {
    std::vector<std::string> paths;
    for (std::size_t i = 0; i < cameras.size(); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        ForwardResult<float> fwd = cpu::render_forward(scene, cameras[i], settings);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::string path = view_path(out, i, cameras.size());
        if (auto dir = std::filesystem::path(path).parent_path(); !dir.empty())
            std::filesystem::create_directories(dir);
        write_png(path, to_u8(fwd.rgb));
        log_info("wrote {} ({}x{}, {} tile pairs, {:.1f} ms)", path, cameras[i].width, cameras[i].height,
                 fwd.lists.pairs(), ms);
        paths.push_back(path);
    }
    return paths;
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
    return orbit(centre, radius, elevation_deg, views, up, fov_y_deg, width, height);
}

}  // namespace radiant::app
