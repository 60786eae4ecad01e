// Opening a dataset: the layout, the views with their cameras at the loaded size, the masks, the split,
// the scene's extent and focus. Decoding is in load_images.cpp, `radiant info`'s text in
// dataset_summary.cpp.
#include "radiant/io/dataset.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/io/colmap.hpp"
#include "radiant/io/image_io.hpp"
#include "radiant/io/masks.hpp"
#include "radiant/io/ply.hpp"
#include "radiant/io/transforms_json.hpp"
#include "radiant/io/undistort.hpp"

namespace radiant {
namespace fs = std::filesystem;

const char* to_string(Undistort u) {
    switch (u) {
        case Undistort::none:
            return "none";
        case Undistort::mask:
            return "mask";
        case Undistort::crop:
            return "crop";
    }
    return "?";
}

const char* to_string(AlphaUse a) {
    switch (a) {
        case AlphaUse::automatic:
            return "auto";
        case AlphaUse::composite:
            return "composite";
        case AlphaUse::mask:
            return "mask";
    }
    return "?";
}

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

int downscaled(int size, double factor) {
    return std::max(1, int(std::lround(double(size) / factor)));
}

// A folder named by the user: relative to the dataset, or absolute. Must exist.
fs::path user_folder(const std::string& root, const std::string& given, const char* what) {
    const fs::path p = fs::path(given).is_absolute() ? fs::path(given) : fs::path(root) / given;
    std::error_code ec;
    if (!fs::is_directory(p, ec)) throw IoError(p.string(), fmt::format("{} folder not found", what));
    return p;
}

// Views of a COLMAP model. Cameras stay at their stored size unless the image came from images_N (then
// they are scaled to the file); the common downscale is applied afterwards.
void open_colmap(const std::string& model_dir, Dataset& ds, std::vector<bool>& prescaled) {
    const ColmapModel m = read_colmap_model(model_dir);
    ds.format = m.binary ? "colmap (binary)" : "colmap (text)";
    const fs::path root(ds.root);
    const int n = ds.options.downscale;
    // Inria's convert.py keeps the distorted model in distorted/sparse/0 beside the photos in input/.
    const bool inria_input =
        fs::path(model_dir).lexically_normal() == (root / "distorted" / "sparse" / "0").lexically_normal();
    fs::path image_dir = root / (inria_input ? "input" : "images");
    bool has_scaled = false;
    std::error_code ec;
    if (!ds.options.images.empty()) {
        image_dir = user_folder(ds.root, ds.options.images, "image");
    } else if (n > 1 && fs::is_directory(root / fmt::format("images_{}", n), ec) && !inria_input) {
        image_dir = root / fmt::format("images_{}", n);
        has_scaled = true;
    }
    if (!fs::is_directory(image_dir, ec)) throw IoError(image_dir.string(), "image folder not found");
    ds.image_dir = image_dir.string();
    if (inria_input)
        ds.notes.push_back(
            fmt::format("Inria convert.py layout: the distorted model {} with the photos in {}", model_dir,
                        image_dir.string()));
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
        const auto cam_it = cams.find(im.camera_id);
        if (cam_it == cams.end())
            throw IoError(m.dir, fmt::format("image {} names camera {}, which the model does not have",
                                             im.name, im.camera_id));
        Camera cam = cam_it->second;
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
        } else if (size.width != cam.width || size.height != cam.height) {
            throw IoError(v.image_path, fmt::format("is {}x{}, but its camera {} is {}x{}", size.width,
                                                    size.height, im.camera_id, cam.width, cam.height));
        }
        v.source_camera = cam;
        ds.views.push_back(std::move(v));
        prescaled.push_back(has_scaled);
    }
    for (const ColmapPoint& p : m.points) {
        ds.points.push_back({float(p.xyz.x), float(p.xyz.y), float(p.xyz.z)});
        ds.point_colours.push_back(p.rgb);
    }
}

void read_points(const std::string& path, Dataset& ds) {
    const PointCloud pc = read_point_cloud_ply(path);
    ds.points = pc.points;
    ds.point_colours = pc.colours;
}

void open_transforms(const std::string& dir, Dataset& ds, std::vector<bool>& prescaled,
                     std::vector<std::string>& frame_masks) {
    const fs::path image_dir =
        ds.options.images.empty() ? fs::path() : user_folder(ds.root, ds.options.images, "image");
    TransformsDataset t = read_transforms_dataset(dir, image_dir.string());
    ds.format = t.layout;
    ds.warnings.insert(ds.warnings.end(), t.warnings.begin(), t.warnings.end());
    ds.image_dir = image_dir.string();
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
        v.source_camera = cam;
        v.test = f.split == "test";
        ds.views.push_back(std::move(v));
        prescaled.push_back(false);
        frame_masks.push_back(f.mask_path);
    }
    if (!t.points_path.empty()) {  // nerfstudio's initial points
        read_points(t.points_path, ds);
    } else {
        for (const char* name : {"points3D.ply", "points3d.ply"}) {  // Inria 3DGS's, when present
            const fs::path p = fs::path(dir) / name;
            std::error_code ec;
            if (!fs::exists(p, ec)) continue;
            read_points(p.string(), ds);
            break;
        }
    }
    if (t.layout == "nerf-synthetic") {
        std::vector<bool> keep(ds.views.size(), true);
        if (!ds.options.eval)
            for (DatasetView& v : ds.views) v.test = false;
        else  // the dataset's own split; val frames are neither
            for (std::size_t i = 0; i < ds.views.size(); ++i)
                keep[i] = ds.views[i].name.rfind("val/", 0) != 0;
        std::size_t k = 0;
        for (std::size_t i = 0; i < ds.views.size(); ++i)
            if (keep[i]) {
                if (k != i) {
                    ds.views[k] = std::move(ds.views[i]);
                    prescaled[k] = prescaled[i];
                    frame_masks[k] = std::move(frame_masks[i]);
                }
                ++k;
            }
        ds.views.resize(k);
        prescaled.resize(k);
        frame_masks.resize(k);
    }
}

// The loaded size: --downscale N, or the automatic cap on the longer side.
void apply_downscale(Dataset& ds, const std::vector<bool>& prescaled) {
    const DatasetOptions& o = ds.options;
    double factor = o.downscale;
    if (o.downscale == 0) {
        int longest = 0;
        for (const DatasetView& v : ds.views)
            longest = std::max({longest, v.source_camera.width, v.source_camera.height});
        factor = longest > o.max_side ? double(longest) / o.max_side : 1.0;
        if (factor > 1)
            ds.notes.push_back(
                fmt::format("images are up to {} px on their longer side: training at 1/{:.3g} of full size, "
                            "{} px at most "
                            "(as Inria 3DGS; --downscale 1 keeps full size, --downscale N takes 1/N)",
                            longest, factor, o.max_side));
    }
    ds.scale = 1 / factor;
    for (std::size_t i = 0; i < ds.views.size(); ++i) {
        Camera& c = ds.views[i].source_camera;
        if (factor > 1 && !prescaled[i])
            c = scaled(c, downscaled(c.width, factor), downscaled(c.height, factor));
    }
}

// Every view's mask file: a frame's own mask_path, or the same name in the mask folder (--masks, else
// DIR/masks when it exists). With a mask folder, an image without a mask is an error.
void find_masks(Dataset& ds, const std::vector<std::string>& frame_masks) {
    fs::path dir;
    std::error_code ec;
    if (!ds.options.masks.empty())
        dir = user_folder(ds.root, ds.options.masks, "mask");
    else if (fs::is_directory(fs::path(ds.root) / "masks", ec))
        dir = fs::path(ds.root) / "masks";
    ds.mask_dir = dir.string();
    for (std::size_t i = 0; i < ds.views.size(); ++i) {
        DatasetView& v = ds.views[i];
        if (dir.empty()) {
            v.mask_path = frame_masks.empty() ? "" : frame_masks[i];
            continue;
        }
        // transforms.json views are named by file (split/file for NeRF-synthetic): look up the file name.
        const std::string name = frame_masks.empty() ? v.name : fs::path(v.image_path).filename().string();
        v.mask_path = find_mask(dir.string(), name);
        if (v.mask_path.empty())
            throw IoError((dir / name).string(),
                          fmt::format("no mask for image {} (looked for {} with .png or another image "
                                      "extension; every image needs one when {} exists)",
                                      v.image_path, (dir / name).string(), dir.string()));
    }
}

// The camera training renders for a view: the photo's own, or the pinhole its undistortion produces.
void choose_render_cameras(Dataset& ds) {
    std::map<std::vector<double>, Camera> crops;  // one crop per distinct lens
    for (DatasetView& v : ds.views) {
        v.camera = v.source_camera;
        if (ds.options.undistort == Undistort::none || v.camera.model == CameraModel::pinhole) continue;
        if (ds.options.undistort == Undistort::crop) {
            const Camera& c = v.source_camera;
            const std::vector<double> key = lens_key(c);
            auto it = crops.find(key);
            if (it == crops.end()) it = crops.emplace(key, crop_camera(c, v.image_path)).first;
            v.camera.fx = it->second.fx;
            v.camera.fy = it->second.fy;
            v.camera.cx = it->second.cx;
            v.camera.cy = it->second.cy;
        }
        v.camera.model = CameraModel::pinhole;
        v.camera.distortion.clear();
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

std::vector<Camera> Dataset::named_cameras() const {
    std::vector<Camera> out;
    for (const DatasetView& v : views) {
        out.push_back(v.camera);
        out.back().name = v.name;
    }
    return out;
}

std::vector<std::string> Dataset::splits() const {
    std::vector<std::string> out;
    for (const DatasetView& v : views) out.push_back(v.test ? "test" : "train");
    return out;
}

Dataset open_dataset(const std::string& dir, const DatasetOptions& options) {
    if (options.downscale < 0)
        throw Error(fmt::format("downscale {} must be 0 (automatic) or at least 1", options.downscale));
    if (options.max_side < 1) throw Error(fmt::format("max_side {} must be positive", options.max_side));
    if (options.test_every < 2)
        throw Error(fmt::format("test_every {} must be at least 2", options.test_every));
    std::error_code ec;
    if (!fs::exists(dir, ec)) throw IoError(dir, "does not exist");
    if (!fs::is_directory(dir, ec)) throw IoError(dir, "is a file, not a dataset folder");
    Dataset ds;
    ds.root = dir;
    ds.options = options;
    std::vector<bool> prescaled;
    std::vector<std::string> frame_masks;
    const std::string model = find_colmap_model(dir);
    if (!model.empty())
        open_colmap(model, ds, prescaled);
    else if (fs::exists(fs::path(dir) / "transforms.json", ec) ||
             fs::exists(fs::path(dir) / "transforms_train.json", ec))
        open_transforms(dir, ds, prescaled, frame_masks);
    else
        throw IoError(dir,
                      "no dataset found (expected sparse/0/cameras.bin or .txt, distorted/sparse/0 (Inria's "
                      "convert.py), transforms.json or transforms_train.json; photos without poses: "
                      "`radiant prepare` poses them)");
    if (ds.views.empty()) throw IoError(dir, "no usable images");
    ds.alpha = options.alpha != AlphaUse::automatic ? options.alpha
               : ds.format == "nerf-synthetic"      ? AlphaUse::composite
                                                    : AlphaUse::mask;
    apply_downscale(ds, prescaled);
    find_masks(ds, frame_masks);
    // Sorted by name, carrying each view's data along.
    std::stable_sort(ds.views.begin(), ds.views.end(),
                     [](const DatasetView& a, const DatasetView& b) { return a.name < b.name; });
    for (DatasetView& v : ds.views) validate(v.source_camera, v.image_path);
    choose_render_cameras(ds);
    for (std::size_t i = 0; i < ds.views.size(); ++i)
        if (ds.format != "nerf-synthetic")
            ds.views[i].test = options.eval && i % std::size_t(options.test_every) == 0;
    // Scene scale as Inria 3DGS: mean camera centre, max distance to it, × 1.1.
    Vec3<double> c{};
    for (const DatasetView& v : ds.views) c += v.camera.centre();
    c = (1.0 / double(ds.views.size())) * c;
    double r = 0;
    for (const DatasetView& v : ds.views) r = std::max(r, length(v.camera.centre() - c));
    ds.centre = c;
    ds.extent = r > 0 ? 1.1 * r : 1.0;
    std::vector<Camera> cameras;
    for (const DatasetView& v : ds.views) cameras.push_back(v.camera);
    ds.focus = focus_point(cameras, ds.centre, ds.extent);
    for (const std::string& w : ds.warnings) log_warn("{}", w);
    for (const std::string& n : ds.notes) log_info("{}", n);
    return ds;
}

}  // namespace radiant
