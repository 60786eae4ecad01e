#include "radiant/io/dataset.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>

#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/core/progress.hpp"
#include "radiant/core/system_memory.hpp"
#include "radiant/io/colmap.hpp"
#include "radiant/io/image_io.hpp"
#include "radiant/io/ply.hpp"
#include "radiant/io/transforms_json.hpp"
#include "radiant/io/undistort.hpp"

namespace radiant {
namespace fs = std::filesystem;
namespace {

// Intrinsics for an image of size (w, h) taken by `c` (stored at c.width × c.height).
Camera scaled(const Camera& c, int w, int h) {
    Camera s = c;
    const double sx = double(w) / c.width, sy = double(h) / c.height;
    s.width = w;
    s.height = h;
    s.fx *= sx;
    s.cx *= sx;
    s.fy *= sy;
    s.cy *= sy;
    return s;
}

int downscaled(int size, int factor) {
    return std::max(1, int(std::lround(double(size) / factor)));
}

void open_colmap(const std::string& model_dir, Dataset& ds) {
    const ColmapModel m = read_colmap_model(model_dir);
    ds.format = m.binary ? "colmap (binary)" : "colmap (text)";
    const fs::path root(ds.root);
    const int n = ds.options.downscale;
    const fs::path scaled_dir = root / fmt::format("images_{}", n);
    std::error_code ec;
    const bool has_scaled = n > 1 && fs::is_directory(scaled_dir, ec);
    const fs::path image_dir = has_scaled ? scaled_dir : root / "images";
    if (!fs::is_directory(image_dir, ec)) throw IoError(image_dir.string(), "image folder not found");
    std::map<std::uint32_t, Camera> cams;
    for (const ColmapCamera& c : m.cameras) cams[c.id] = colmap_intrinsics(c, m.dir);
    for (const ColmapImage& im : m.images) {
        DatasetView v;
        v.name = im.name;
        v.image_path = (image_dir / im.name).string();
        if (!fs::exists(v.image_path, ec)) {
            ds.warnings.push_back(
                fmt::format("image {} of the COLMAP model is missing; skipped", v.image_path));
            continue;
        }
        Camera cam = cams.at(im.camera_id);
        cam.name = im.name;
        cam.R = rotation_from_qvec(im.qvec);
        cam.t = im.tvec;
        const ImageSize size = read_image_size(v.image_path);
        v.source_width = size.width;
        v.source_height = size.height;
        if (has_scaled) {
            // images_N were written by another tool with its own rounding: accept ±1 pixel of N× smaller.
            if (std::abs(size.width - double(cam.width) / n) > 1.01 ||
                std::abs(size.height - double(cam.height) / n) > 1.01)
                throw IoError(v.image_path,
                              fmt::format("is {}x{}, but camera {} is {}x{} and the folder says 1/{}",
                                          size.width, size.height, im.camera_id, cam.width, cam.height, n));
            cam = scaled(cam, size.width, size.height);
        } else {
            if (size.width != cam.width || size.height != cam.height)
                throw IoError(v.image_path, fmt::format("is {}x{}, but its camera {} is {}x{}", size.width,
                                                        size.height, im.camera_id, cam.width, cam.height));
            if (n > 1) cam = scaled(cam, downscaled(cam.width, n), downscaled(cam.height, n));
        }
        v.source_camera = cam;
        ds.views.push_back(std::move(v));
    }
    for (const ColmapPoint& p : m.points) {
        ds.points.push_back({float(p.xyz.x), float(p.xyz.y), float(p.xyz.z)});
        ds.point_colours.push_back(p.rgb);
    }
}

void open_transforms(const std::string& dir, Dataset& ds) {
    TransformsDataset t = read_transforms_dataset(dir);
    ds.format = t.layout;
    ds.warnings.insert(ds.warnings.end(), t.warnings.begin(), t.warnings.end());
    for (TransformsFrame& f : t.frames) {
        DatasetView v;
        v.name = f.split.empty() ? f.name : f.split + "/" + f.name;
        v.image_path = f.image_path;
        const ImageSize size = read_image_size(v.image_path);
        v.source_width = size.width;
        v.source_height = size.height;
        Camera cam = f.camera;
        if (cam.width == 0 || cam.height == 0) {
            cam.width = size.width;
            cam.height = size.height;
        }
        if (cam.fx == 0) {
            if (!(f.camera_angle_x > 0))
                throw IoError(v.image_path, "frame has neither fl_x nor camera_angle_x");
            cam.fx = 0.5 * cam.width / std::tan(0.5 * f.camera_angle_x);
        }
        if (cam.fy == 0) cam.fy = cam.fx;
        if (cam.cx == 0 && cam.cy == 0) {
            cam.cx = 0.5 * cam.width;
            cam.cy = 0.5 * cam.height;
        }
        if (size.width != cam.width || size.height != cam.height)
            throw IoError(v.image_path, fmt::format("is {}x{}, but transforms.json says {}x{}", size.width,
                                                    size.height, cam.width, cam.height));
        const int n = ds.options.downscale;
        if (n > 1) cam = scaled(cam, downscaled(cam.width, n), downscaled(cam.height, n));
        v.source_camera = cam;
        v.test = f.split == "test";
        ds.views.push_back(std::move(v));
    }
    for (const char* name : {"points3D.ply", "points3d.ply"}) {  // Inria 3DGS's initial points, when present
        const fs::path p = fs::path(dir) / name;
        std::error_code ec;
        if (!fs::exists(p, ec)) continue;
        const PointCloud pc = read_point_cloud_ply(p.string());
        ds.points = pc.points;
        ds.point_colours = pc.colours;
        break;
    }
    if (t.layout == "nerf-synthetic") {
        if (!ds.options.eval)
            for (DatasetView& v : ds.views) v.test = false;
        else  // the dataset's own split; val frames are neither
            ds.views.erase(std::remove_if(ds.views.begin(), ds.views.end(),
                                          [](const DatasetView& v) { return v.name.rfind("val/", 0) == 0; }),
                           ds.views.end());
    }
}

}  // namespace

std::size_t Dataset::train_count() const {
    return std::size_t(
        std::count_if(views.begin(), views.end(), [](const DatasetView& v) { return !v.test; }));
}
std::size_t Dataset::test_count() const {
    return views.size() - train_count();
}

Dataset open_dataset(const std::string& dir, const DatasetOptions& options) {
    if (options.downscale < 1) throw Error(fmt::format("downscale {} must be at least 1", options.downscale));
    if (options.test_every < 2)
        throw Error(fmt::format("test_every {} must be at least 2", options.test_every));
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw IoError(dir, "not a dataset folder");
    Dataset ds;
    ds.root = dir;
    ds.options = options;
    const std::string model = find_colmap_model(dir);
    if (!model.empty())
        open_colmap(model, ds);
    else if (fs::exists(fs::path(dir) / "transforms.json", ec) ||
             fs::exists(fs::path(dir) / "transforms_train.json", ec))
        open_transforms(dir, ds);
    else
        throw IoError(dir,
                      "no dataset found (expected sparse/0/cameras.bin or .txt, transforms.json or "
                      "transforms_train.json)");
    if (ds.views.empty()) throw IoError(dir, "no usable images");
    std::stable_sort(ds.views.begin(), ds.views.end(),
                     [](const DatasetView& a, const DatasetView& b) { return a.name < b.name; });
    for (std::size_t i = 0; i < ds.views.size(); ++i) {
        DatasetView& v = ds.views[i];
        validate(v.source_camera, v.image_path);
        v.camera = v.source_camera;
        if (options.undistort && v.camera.model != CameraModel::pinhole) {
            v.camera.model = CameraModel::pinhole;
            v.camera.distortion.clear();
        }
        if (ds.format != "nerf-synthetic") v.test = options.eval && i % std::size_t(options.test_every) == 0;
    }
    // Scene scale as Inria 3DGS: mean camera centre, max distance to it, × 1.1.
    Vec3<double> c{};
    for (const DatasetView& v : ds.views) c += v.camera.centre();
    c = (1.0 / double(ds.views.size())) * c;
    double r = 0;
    for (const DatasetView& v : ds.views) r = std::max(r, length(v.camera.centre() - c));
    ds.centre = c;
    ds.extent = r > 0 ? 1.1 * r : 1.0;
    ds.focus = focus_point(ds.views, ds.centre, ds.extent);
    for (const std::string& w : ds.warnings) log_warn("{}", w);
    return ds;
}

// Solves Σ (I − d dᵀ) x = Σ (I − d dᵀ) c (d: unit optical axis, c: camera centre) by Cramer's rule.
Vec3<double> focus_point(const std::vector<DatasetView>& views, Vec3<double> centre, double extent) {
    double a[3][3]{}, b[3]{};
    Vec3<double> mean_dir{};
    for (const DatasetView& v : views) {
        const Vec3<double> d{v.camera.R[2][0], v.camera.R[2][1], v.camera.R[2][2]};  // optical axis, world
        const Vec3<double> c = v.camera.centre();
        mean_dir += d;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                const double m = (i == j ? 1.0 : 0.0) - d[i] * d[j];
                a[i][j] += m;
                b[i] += m * c[j];
            }
    }
    const double n = double(views.size());
    auto det3 = [](const double m[3][3]) {
        return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
               m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
               m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    };
    const double det = det3(a);
    const double len = length(mean_dir);
    const Vec3<double> ahead = len > 0 ? centre + (extent / len) * mean_dir : centre;
    // det / n³ is the product of the normalised eigenvalues (each in [0, 1]): below 1e-3 the smallest is
    // tiny, the axes nearly parallel.
    if (!(det / (n * n * n) > 1e-3)) return ahead;
    Vec3<double> x;
    for (int k = 0; k < 3; ++k) {
        double m[3][3];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) m[i][j] = j == k ? b[i] : a[i][j];
        x[k] = det3(m) / det;
    }
    // A point behind most cameras is no focus (cameras looking outwards): fall back as well.
    std::size_t in_front = 0;
    for (const DatasetView& v : views) in_front += (v.camera.R * x + v.camera.t).z > 0 ? 1 : 0;
    return 2 * in_front > views.size() ? x : ahead;
}

namespace {

// The decoded set (8-bit RGB at the loaded size) plus what decoding holds at once: one source-size RGBA
// image and its resized copy per thread.
std::size_t image_set_bytes(const Dataset& ds, int extra_downscale) {
    std::size_t kept = 0, largest_source = 0;
    for (const DatasetView& v : ds.views) {
        kept += std::size_t(v.camera.width / extra_downscale) *
                std::size_t(v.camera.height / extra_downscale) * 3;
        largest_source = std::max(largest_source, std::size_t(v.source_width) * std::size_t(v.source_height));
    }
    return kept + largest_source * 7 * std::size_t(omp_get_max_threads());
}

}  // namespace

std::vector<Image<std::uint8_t>> load_images(const Dataset& ds, std::size_t memory_limit) {
    if (memory_limit == 0) memory_limit = available_host_memory();
    if (const std::size_t need = image_set_bytes(ds, 1); memory_limit > 0 && need > memory_limit) {
        int k = 2;
        while (k < 16 && image_set_bytes(ds, k) > memory_limit) k *= 2;
        throw OutOfMemory(fmt::format(
            "{}: the {} images need {} in memory at {}x{} (8-bit RGB, while decoding), more than the {} "
            "available; train with --downscale {} ({} needed)",
            ds.root, ds.views.size(), format_bytes(need), ds.views.front().camera.width,
            ds.views.front().camera.height, format_bytes(memory_limit), ds.options.downscale * k,
            format_bytes(image_set_bytes(ds, k))));
    }
    std::vector<Image<std::uint8_t>> images(ds.views.size());
    // One remap table per distinct distorted camera (a dataset usually shares one).
    std::map<std::vector<double>, UndistortMap> maps;
    std::mutex maps_mutex;
    ProgressLine progress("loading images", ds.views.size());
    const double bg[3] = {ds.options.background[0], ds.options.background[1], ds.options.background[2]};
    std::string first_error;
    std::mutex error_mutex;
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t i = 0; i < std::int64_t(ds.views.size()); ++i) {
        const DatasetView& v = ds.views[std::size_t(i)];
        try {
            Image<std::uint8_t> img = read_image(v.image_path);
            if (img.width != v.source_width || img.height != v.source_height)
                throw IoError(v.image_path, "image size changed since the dataset was opened");
            img = to_rgb(img, bg);
            if (img.width != v.source_camera.width || img.height != v.source_camera.height)
                img = resize_area(img, v.source_camera.width, v.source_camera.height);
            if (v.source_camera.model != CameraModel::pinhole && ds.options.undistort) {
                const Camera& c = v.source_camera;
                std::vector<double> key{double(c.width), double(c.height), c.fx, c.fy, c.cx, c.cy,
                                        double(c.model)};
                key.insert(key.end(), c.distortion.begin(), c.distortion.end());
                const UndistortMap* map;
                {
                    std::lock_guard lock(maps_mutex);
                    auto it = maps.find(key);
                    if (it == maps.end()) it = maps.emplace(key, make_undistort_map(c)).first;
                    map = &it->second;
                }
                img = undistort_image(*map, img);
            }
            images[std::size_t(i)] = std::move(img);
        } catch (const std::exception& e) {
            std::lock_guard lock(error_mutex);
            if (first_error.empty()) first_error = e.what();
        }
        progress.tick();
    }
    progress.done();
    if (!first_error.empty()) throw IoError(ds.root, first_error);
    return images;
}

std::string describe(const Dataset& ds) {
    std::string s = fmt::format("dataset     {}\nformat      {}\n", ds.root, ds.format);
    std::map<std::string, int> models;
    std::map<std::string, int> sizes;
    for (const DatasetView& v : ds.views) {
        const Camera& c = v.source_camera;
        std::string d = to_string(c.model);
        if (!c.distortion.empty()) {
            d += " (";
            for (std::size_t i = 0; i < c.distortion.size(); ++i)
                d += fmt::format("{}{:.4g}", i ? " " : "", c.distortion[i]);
            d += ")";
        }
        models[fmt::format("{}  fx {:.1f} fy {:.1f} cx {:.1f} cy {:.1f}", d, c.fx, c.fy, c.cx, c.cy)]++;
        sizes[fmt::format("{}x{}", c.width, c.height)]++;
    }
    s += fmt::format(
        "images      {} ({} train, {} test{})\n", ds.views.size(), ds.train_count(), ds.test_count(),
        ds.options.eval ? fmt::format(", every {}th held out", ds.options.test_every) : ", --eval off");
    for (const auto& [size, count] : sizes) s += fmt::format("image size  {} ({} images)\n", size, count);
    for (const auto& [model, count] : models) s += fmt::format("camera      {} ({} images)\n", model, count);
    if (ds.options.undistort && ds.views.front().source_camera.model != CameraModel::pinhole)
        s += "undistort   to an ideal pinhole with the same intrinsics (ewa)\n";
    s += fmt::format("points      {}\n", ds.points.size());
    s += fmt::format("extent      {:.4f} (camera centre {:.3f} {:.3f} {:.3f})\n", ds.extent, ds.centre.x,
                     ds.centre.y, ds.centre.z);
    s += fmt::format("focus       {:.3f} {:.3f} {:.3f} (nearest point to the optical axes)\n", ds.focus.x,
                     ds.focus.y, ds.focus.z);
    if (!ds.warnings.empty())  // each was logged when the dataset was opened
        s += fmt::format("warnings    {} (see above)\n", ds.warnings.size());
    return s;
}

}  // namespace radiant
