#include "radiant/io/transforms_json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "radiant/core/error.hpp"
#include "radiant/io/file.hpp"

namespace radiant {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

json parse_json_file(const std::string& path) {
    const std::string text = read_file(path);
    try {
        return json::parse(text);
    } catch (const json::exception& e) {
        throw IoError(path, fmt::format("invalid JSON: {}", e.what()));
    }
}

double number(const json& j, const char* key, const std::string& where) {
    if (!j[key].is_number()) throw IoError(where, fmt::format("'{}' must be a number", key));
    const double v = j[key].get<double>();
    if (!std::isfinite(v)) throw IoError(where, fmt::format("'{}' is not finite", key));
    return v;
}

// The lens named by nerfstudio's "camera_model" (absent: OpenCV when distortion keys are given).
void read_camera_model(const json& j, const std::string& where, Camera& cam) {
    if (j.contains("is_fisheye") && j["is_fisheye"] != false)
        throw IoError(where,
                      "instant-ngp's 'is_fisheye' lens is not supported; give nerfstudio's \"camera_model\": "
                      "\"OPENCV_FISHEYE\" with k1..k4 for an equidistant fisheye");
    if (!j.contains("camera_model")) return;
    const std::string m = j["camera_model"].is_string() ? j["camera_model"].get<std::string>() : "";
    if (m == "OPENCV" || m == "FULL_OPENCV")
        cam.model = CameraModel::opencv;
    else if (m == "OPENCV_FISHEYE")
        cam.model = CameraModel::fisheye;
    else if (m == "PINHOLE" || m == "SIMPLE_PINHOLE")
        cam.model = CameraModel::pinhole;
    else
        throw IoError(where,
                      fmt::format("'camera_model' {} is not supported (OPENCV, OPENCV_FISHEYE, PINHOLE)",
                                  j["camera_model"].dump()));
}

// The intrinsics keys of instant-ngp and nerfstudio, read from `j` over the values already in `cam`
// (frame overrides).
void read_intrinsics(const json& j, const std::string& where, Camera& cam, double& angle_x) {
    if (j.contains("camera_angle_x")) angle_x = number(j, "camera_angle_x", where);
    if (j.contains("fl_x")) cam.fx = number(j, "fl_x", where);
    if (j.contains("fl_y")) cam.fy = number(j, "fl_y", where);
    if (j.contains("cx")) cam.cx = number(j, "cx", where);
    if (j.contains("cy")) cam.cy = number(j, "cy", where);
    if (j.contains("w")) cam.width = int(std::lround(number(j, "w", where)));
    if (j.contains("h")) cam.height = int(std::lround(number(j, "h", where)));
    const CameraModel before = cam.model;
    read_camera_model(j, where, cam);
    if (cam.model == CameraModel::fisheye) {
        const char* keys[] = {"k1", "k2", "k3", "k4"};
        if (before != CameraModel::fisheye) cam.distortion.assign(4, 0.0);
        for (std::size_t i = 0; i < 4; ++i)
            if (j.contains(keys[i])) cam.distortion[i] = number(j, keys[i], where);
        return;
    }
    if (j.contains("k4"))
        throw IoError(where, "'k4' belongs to a fisheye lens: set \"camera_model\": \"OPENCV_FISHEYE\"");
    const char* keys[] = {"k1", "k2", "p1", "p2", "k3"};  // radiant's opencv order
    bool any = false;
    for (const char* k : keys) any |= j.contains(k);
    if (!any) {
        if (cam.model == CameraModel::opencv && cam.distortion.empty()) cam.distortion.assign(4, 0.0);
        if (cam.model == CameraModel::pinhole) cam.distortion.clear();
        return;
    }
    if (cam.model == CameraModel::pinhole && j.contains("camera_model"))
        throw IoError(where, "distortion coefficients given for a PINHOLE 'camera_model'");
    const std::size_t n = j.contains("k3") || cam.distortion.size() == 5 ? 5 : 4;
    cam.distortion.resize(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        if (j.contains(keys[i])) cam.distortion[i] = number(j, keys[i], where);
    cam.model = CameraModel::opencv;
}

void read_frames(const std::string& json_path, const std::string& split, const std::string& image_dir,
                 TransformsDataset& out) {
    const json doc = parse_json_file(json_path);
    if (!doc.is_object() || !doc.contains("frames") || !doc["frames"].is_array())
        throw IoError(json_path, "expected an object with a 'frames' list");
    Camera base;
    double base_angle = 0;
    read_intrinsics(doc, json_path, base, base_angle);
    const fs::path dir = fs::path(json_path).parent_path();
    if (doc.contains("ply_file_path")) {
        if (!doc["ply_file_path"].is_string()) throw IoError(json_path, "'ply_file_path' must be a string");
        const fs::path ply = dir / doc["ply_file_path"].get<std::string>();
        std::error_code ec;
        if (!fs::is_regular_file(ply, ec))
            throw IoError(json_path, fmt::format("'ply_file_path' {} is missing", ply.string()));
        out.points_path = ply.lexically_normal().string();
    }
    for (std::size_t i = 0; i < doc["frames"].size(); ++i) {
        const json& f = doc["frames"][i];
        const std::string where = fmt::format("{}: frame {}", json_path, i);
        if (!f.is_object() || !f.contains("file_path") || !f["file_path"].is_string())
            throw IoError(where, "missing 'file_path'");
        if (!f.contains("transform_matrix") || !f["transform_matrix"].is_array() ||
            f["transform_matrix"].size() < 3)
            throw IoError(where, "'transform_matrix' must be a 4×4 (or 3×4) list of rows");
        double c2w[3][4];
        for (int r = 0; r < 3; ++r) {
            const json& row = f["transform_matrix"][std::size_t(r)];
            if (!row.is_array() || row.size() != 4)
                throw IoError(where, "'transform_matrix' rows must have 4 numbers");
            for (int c = 0; c < 4; ++c) {
                if (!row[std::size_t(c)].is_number())
                    throw IoError(where, "'transform_matrix' must hold numbers");
                c2w[r][c] = row[std::size_t(c)].get<double>();
                if (!std::isfinite(c2w[r][c])) throw IoError(where, "'transform_matrix' is not finite");
            }
        }
        TransformsFrame frame;
        frame.camera = base;
        frame.camera_angle_x = base_angle;
        read_intrinsics(f, where, frame.camera, frame.camera_angle_x);
        frame.split = split;
        opengl_c2w_to_camera(c2w, frame.camera);
        // NeRF-synthetic paths omit the extension ("./train/r_0").
        const fs::path given(f["file_path"].get<std::string>());
        fs::path p = image_dir.empty() ? dir / given : fs::path(image_dir) / given.filename();
        std::error_code ec;
        if (!fs::exists(p, ec))
            for (const char* ext : {".png", ".jpg", ".jpeg", ".JPG", ".PNG"})
                if (fs::exists(fs::path(p.string() + ext), ec)) {
                    p = p.string() + ext;
                    break;
                }
        if (!fs::exists(p, ec)) {
            out.warnings.push_back(fmt::format("{}: image {} is missing; frame skipped", where, p.string()));
            continue;
        }
        frame.image_path = p.lexically_normal().string();
        frame.name = p.filename().string();
        frame.camera.name = frame.name;
        if (f.contains("mask_path")) {
            if (!f["mask_path"].is_string()) throw IoError(where, "'mask_path' must be a string");
            const fs::path m = dir / f["mask_path"].get<std::string>();
            if (!fs::is_regular_file(m, ec))
                throw IoError(where, fmt::format("mask {} of image {} is missing", m.string(), frame.name));
            frame.mask_path = m.lexically_normal().string();
        }
        out.frames.push_back(std::move(frame));
    }
}

}  // namespace

void opengl_c2w_to_camera(const double c2w[3][4], Camera& cam) {
    // OpenGL camera axes (x right, y up, z back) → OpenCV (x right, y down, z forward): flip y and z columns.
    Mat3<double> r_c2w;
    for (int i = 0; i < 3; ++i) {
        r_c2w.m[i][0] = c2w[i][0];
        r_c2w.m[i][1] = -c2w[i][1];
        r_c2w.m[i][2] = -c2w[i][2];
    }
    // Orthonormalise (poses in the wild carry scale or rounding) by Gram–Schmidt on the columns.
    Vec3<double> x{r_c2w.m[0][0], r_c2w.m[1][0], r_c2w.m[2][0]},
        y{r_c2w.m[0][1], r_c2w.m[1][1], r_c2w.m[2][1]};
    x = normalize(x);
    y = normalize(y - dot(x, y) * x);
    const Vec3<double> z = cross(x, y);
    for (int i = 0; i < 3; ++i) {
        cam.R.m[0][i] = x[i];
        cam.R.m[1][i] = y[i];
        cam.R.m[2][i] = z[i];
    }
    const Vec3<double> centre{c2w[0][3], c2w[1][3], c2w[2][3]};
    cam.t = -(cam.R * centre);
}

TransformsDataset read_transforms_dataset(const std::string& dir, const std::string& image_dir) {
    TransformsDataset out;
    const fs::path d(dir);
    std::error_code ec;
    if (fs::exists(d / "transforms_train.json", ec)) {
        out.layout = "nerf-synthetic";
        for (const char* split : {"train", "test", "val"}) {
            const fs::path p = d / fmt::format("transforms_{}.json", split);
            if (fs::exists(p, ec)) read_frames(p.string(), split, image_dir, out);
        }
    } else if (fs::exists(d / "transforms.json", ec)) {
        out.layout = "instant-ngp";
        read_frames((d / "transforms.json").string(), "", image_dir, out);
    } else {
        throw IoError(dir, "no transforms.json or transforms_train.json");
    }
    if (out.frames.empty())
        throw IoError(
            (d / (out.layout == "nerf-synthetic" ? "transforms_train.json" : "transforms.json")).string(),
            "no frame has an image");
    return out;
}

}  // namespace radiant
