#include "radiant/io/colmap.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "radiant/core/error.hpp"
#include "radiant/core/quat.hpp"
#include "radiant/io/file.hpp"

namespace radiant {
namespace fs = std::filesystem;
namespace {

struct ModelInfo {
    const char* name;
    int id;
    int params;
};
// COLMAP's model ids and parameter counts (src/colmap/sensor/models.h).
constexpr ModelInfo kModels[] = {
    {"SIMPLE_PINHOLE", 0, 3},
    {"PINHOLE", 1, 4},
    {"SIMPLE_RADIAL", 2, 4},
    {"RADIAL", 3, 5},
    {"OPENCV", 4, 8},
    {"OPENCV_FISHEYE", 5, 8},
    {"FULL_OPENCV", 6, 12},
    {"FOV", 7, 5},
    {"SIMPLE_RADIAL_FISHEYE", 8, 4},
    {"RADIAL_FISHEYE", 9, 5},
    {"THIN_PRISM_FISHEYE", 10, 12},
};

const ModelInfo* model_by_id(int id) {
    for (const auto& m : kModels)
        if (m.id == id) return &m;
    return nullptr;
}
const ModelInfo* model_by_name(const std::string& name) {
    for (const auto& m : kModels)
        if (name == m.name) return &m;
    return nullptr;
}

// Little-endian cursor over a binary file; every read is bounds-checked.
class Reader {
  public:
    Reader(const std::string& bytes, const std::string& name) : b_(bytes), name_(name) {}
    template <class V>
    V get(const char* what) {
        if (b_.size() - pos_ < sizeof(V))
            throw IoError(name_, fmt::format("truncated at byte {} (reading {})", pos_, what));
        V v;
        std::memcpy(&v, b_.data() + pos_, sizeof(V));
        pos_ += sizeof(V);
        return v;
    }
    std::string cstring(const char* what) {
        const std::size_t end = b_.find('\0', pos_);
        if (end == std::string::npos)
            throw IoError(name_, fmt::format("truncated at byte {} (reading {})", pos_, what));
        std::string s = b_.substr(pos_, end - pos_);
        pos_ = end + 1;
        return s;
    }
    void skip(std::uint64_t n, const char* what) {
        if (b_.size() - pos_ < n)
            throw IoError(name_, fmt::format("truncated at byte {} (skipping {})", pos_, what));
        pos_ += std::size_t(n);
    }
    std::size_t remaining() const { return b_.size() - pos_; }
    std::size_t pos() const { return pos_; }

  private:
    const std::string& b_;
    const std::string& name_;
    std::size_t pos_ = 0;
};

double finite(double v, const std::string& name, const std::string& what) {
    if (!std::isfinite(v)) throw IoError(name, fmt::format("{} is not finite", what));
    return v;
}

// Non-comment, non-empty lines with their line numbers.
std::vector<std::pair<std::size_t, std::string>> data_lines(const std::string& text,
                                                            bool keep_empty = false) {
    std::vector<std::pair<std::size_t, std::string>> out;
    std::istringstream in(text);
    std::string line;
    std::size_t n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty() && line[0] == '#') continue;
        if (line.find_first_not_of(" \t") == std::string::npos && !keep_empty) continue;
        out.push_back({n, line});
    }
    return out;
}

template <class V>
V parse_field(std::istringstream& in, const std::string& name, std::size_t line, const char* what) {
    V v;
    if (!(in >> v)) throw IoError(name, fmt::format("line {}: expected {}", line, what));
    return v;
}

}  // namespace

std::string find_colmap_model(const std::string& dir) {
    for (const fs::path& p : {fs::path(dir) / "sparse" / "0", fs::path(dir) / "sparse", fs::path(dir),
                              fs::path(dir) / "distorted" / "sparse" / "0"}) {
        std::error_code ec;
        if (fs::exists(p / "cameras.bin", ec) || fs::exists(p / "cameras.txt", ec)) return p.string();
    }
    return {};
}

std::vector<ColmapCamera> parse_colmap_cameras_bin(const std::string& bytes, const std::string& name) {
    Reader r(bytes, name);
    const auto n = r.get<std::uint64_t>("camera count");
    if (n > r.remaining() / 24) throw IoError(name, fmt::format("camera count {} does not fit the file", n));
    std::vector<ColmapCamera> cams;
    for (std::uint64_t i = 0; i < n; ++i) {
        ColmapCamera c;
        c.id = r.get<std::uint32_t>("camera id");
        const int model = r.get<std::int32_t>("camera model");
        const ModelInfo* m = model_by_id(model);
        if (!m) throw IoError(name, fmt::format("camera {}: unknown camera model id {}", c.id, model));
        c.model = m->name;
        const auto w = r.get<std::uint64_t>("width"), h = r.get<std::uint64_t>("height");
        if (w == 0 || h == 0 || w > 65536 || h > 65536)
            throw IoError(name, fmt::format("camera {}: image size {}x{} is not in 1..65536", c.id, w, h));
        c.width = int(w);
        c.height = int(h);
        for (int k = 0; k < m->params; ++k)
            c.params.push_back(
                finite(r.get<double>("camera parameters"), name, fmt::format("camera {} parameter", c.id)));
        cams.push_back(std::move(c));
    }
    return cams;
}

std::vector<ColmapImage> parse_colmap_images_bin(const std::string& bytes, const std::string& name) {
    Reader r(bytes, name);
    const auto n = r.get<std::uint64_t>("image count");
    if (n > r.remaining() / 64) throw IoError(name, fmt::format("image count {} does not fit the file", n));
    std::vector<ColmapImage> images;
    for (std::uint64_t i = 0; i < n; ++i) {
        ColmapImage im;
        im.id = r.get<std::uint32_t>("image id");
        const std::string what = fmt::format("image {} pose", im.id);
        for (int k = 0; k < 4; ++k) im.qvec[k] = finite(r.get<double>("qvec"), name, what);
        for (int k = 0; k < 3; ++k) im.tvec[k] = finite(r.get<double>("tvec"), name, what);
        im.camera_id = r.get<std::uint32_t>("camera id");
        im.name = r.cstring("image name");
        const auto n2d = r.get<std::uint64_t>("point count");
        if (n2d > r.remaining() / 24)
            throw IoError(name, fmt::format("truncated: image {} declares {} 2D points", im.id, n2d));
        r.skip(n2d * 24, "2D points");
        images.push_back(std::move(im));
    }
    return images;
}

std::vector<ColmapPoint> parse_colmap_points_bin(const std::string& bytes, const std::string& name) {
    Reader r(bytes, name);
    const auto n = r.get<std::uint64_t>("point count");
    if (n > r.remaining() / 43) throw IoError(name, fmt::format("point count {} does not fit the file", n));
    std::vector<ColmapPoint> pts;
    pts.reserve(std::size_t(n));
    for (std::uint64_t i = 0; i < n; ++i) {
        ColmapPoint p;
        const auto id = r.get<std::uint64_t>("point id");
        for (int k = 0; k < 3; ++k)
            p.xyz[k] = finite(r.get<double>("xyz"), name, fmt::format("point {}", id));
        for (int k = 0; k < 3; ++k) p.rgb[std::size_t(k)] = r.get<std::uint8_t>("rgb");
        p.error = r.get<double>("error");
        const auto track = r.get<std::uint64_t>("track length");
        if (track > r.remaining() / 8) throw IoError(name, fmt::format("truncated: point {} track", id));
        r.skip(track * 8, "track");
        pts.push_back(p);
    }
    return pts;
}

std::vector<ColmapCamera> parse_colmap_cameras_txt(const std::string& text, const std::string& name) {
    std::vector<ColmapCamera> cams;
    for (const auto& [line, s] : data_lines(text)) {
        std::istringstream in(s);
        ColmapCamera c;
        c.id = parse_field<std::uint32_t>(in, name, line, "CAMERA_ID");
        c.model = parse_field<std::string>(in, name, line, "MODEL");
        const ModelInfo* m = model_by_name(c.model);
        if (!m) throw IoError(name, fmt::format("line {}: unknown camera model '{}'", line, c.model));
        c.width = parse_field<int>(in, name, line, "WIDTH");
        c.height = parse_field<int>(in, name, line, "HEIGHT");
        if (c.width <= 0 || c.height <= 0 || c.width > 65536 || c.height > 65536)
            throw IoError(
                name, fmt::format("line {}: image size {}x{} is not in 1..65536", line, c.width, c.height));
        for (int k = 0; k < m->params; ++k)
            c.params.push_back(finite(parse_field<double>(in, name, line, "camera parameter"), name,
                                      fmt::format("line {}: parameter", line)));
        std::string extra;
        if (in >> extra)
            throw IoError(name, fmt::format("line {}: too many parameters for {}", line, c.model));
        cams.push_back(std::move(c));
    }
    return cams;
}

std::vector<ColmapImage> parse_colmap_images_txt(const std::string& text, const std::string& name) {
    // Two lines per image; the second (2D points) may be empty, so empty lines count here.
    std::vector<ColmapImage> images;
    const auto lines = data_lines(text, true);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto& [line, s] = lines[i];
        if (s.find_first_not_of(" \t") == std::string::npos) continue;
        std::istringstream in(s);
        ColmapImage im;
        im.id = parse_field<std::uint32_t>(in, name, line, "IMAGE_ID");
        for (int k = 0; k < 4; ++k)
            im.qvec[k] = finite(parse_field<double>(in, name, line, "QW QX QY QZ"), name,
                                fmt::format("line {}", line));
        for (int k = 0; k < 3; ++k)
            im.tvec[k] =
                finite(parse_field<double>(in, name, line, "TX TY TZ"), name, fmt::format("line {}", line));
        im.camera_id = parse_field<std::uint32_t>(in, name, line, "CAMERA_ID");
        std::getline(in >> std::ws, im.name);
        if (im.name.empty()) throw IoError(name, fmt::format("line {}: expected NAME", line));
        images.push_back(std::move(im));
        ++i;  // skip the POINTS2D line
    }
    return images;
}

std::vector<ColmapPoint> parse_colmap_points_txt(const std::string& text, const std::string& name) {
    std::vector<ColmapPoint> pts;
    for (const auto& [line, s] : data_lines(text)) {
        std::istringstream in(s);
        ColmapPoint p;
        parse_field<std::uint64_t>(in, name, line, "POINT3D_ID");
        for (int k = 0; k < 3; ++k)
            p.xyz[k] =
                finite(parse_field<double>(in, name, line, "X Y Z"), name, fmt::format("line {}", line));
        for (int k = 0; k < 3; ++k) {
            const int c = parse_field<int>(in, name, line, "R G B");
            if (c < 0 || c > 255)
                throw IoError(name, fmt::format("line {}: colour {} is not in 0..255", line, c));
            p.rgb[std::size_t(k)] = std::uint8_t(c);
        }
        p.error = parse_field<double>(in, name, line, "ERROR");
        pts.push_back(p);
    }
    return pts;
}

ColmapModel read_colmap_model(const std::string& model_dir) {
    ColmapModel m;
    m.dir = model_dir;
    const fs::path d(model_dir);
    std::error_code ec;
    m.binary = fs::exists(d / "cameras.bin", ec);
    const std::string ext = m.binary ? ".bin" : ".txt";
    for (const char* f : {"cameras", "images"})
        if (!fs::exists(d / (std::string(f) + ext), ec))
            throw IoError((d / (std::string(f) + ext)).string(),
                          "missing (a COLMAP model needs cameras, images, points3D)");
    const std::string cams = (d / ("cameras" + ext)).string(), ims = (d / ("images" + ext)).string(),
                      pts = (d / ("points3D" + ext)).string();
    if (m.binary) {
        m.cameras = parse_colmap_cameras_bin(read_file(cams), cams);
        m.images = parse_colmap_images_bin(read_file(ims), ims);
        if (fs::exists(pts, ec)) m.points = parse_colmap_points_bin(read_file(pts), pts);
    } else {
        m.cameras = parse_colmap_cameras_txt(read_file(cams), cams);
        m.images = parse_colmap_images_txt(read_file(ims), ims);
        if (fs::exists(pts, ec)) m.points = parse_colmap_points_txt(read_file(pts), pts);
    }
    if (m.cameras.empty()) throw IoError(cams, "no cameras");
    if (m.images.empty()) throw IoError(ims, "no registered images");
    for (const ColmapImage& im : m.images) {
        bool found = false;
        for (const ColmapCamera& c : m.cameras) found |= c.id == im.camera_id;
        if (!found)
            throw IoError(ims, fmt::format("image '{}' refers to camera {}, which {} does not have", im.name,
                                           im.camera_id, cams));
        if (dot(im.qvec, im.qvec) < 1e-12)
            throw IoError(ims, fmt::format("image '{}' has a zero rotation", im.name));
    }
    return m;
}

Camera colmap_intrinsics(const ColmapCamera& c, const std::string& where) {
    const ModelInfo* m = model_by_name(c.model);
    if (!m) throw IoError(where, fmt::format("unknown camera model '{}'", c.model));
    if (int(c.params.size()) != m->params)
        throw IoError(where, fmt::format("camera {} ({}) has {} parameters, expected {}", c.id, c.model,
                                         c.params.size(), m->params));
    const auto& p = c.params;
    Camera cam;
    cam.width = c.width;
    cam.height = c.height;
    const std::string model = c.model;
    if (model == "SIMPLE_PINHOLE" || model == "SIMPLE_RADIAL" || model == "RADIAL" ||
        model == "SIMPLE_RADIAL_FISHEYE" || model == "RADIAL_FISHEYE") {
        cam.fx = cam.fy = p[0];
        cam.cx = p[1];
        cam.cy = p[2];
    } else {
        cam.fx = p[0];
        cam.fy = p[1];
        cam.cx = p[2];
        cam.cy = p[3];
    }
    if (model == "SIMPLE_RADIAL") {
        cam.model = CameraModel::opencv;
        cam.distortion = {p[3], 0, 0, 0};
    } else if (model == "RADIAL") {
        cam.model = CameraModel::opencv;
        cam.distortion = {p[3], p[4], 0, 0};
    } else if (model == "OPENCV") {
        cam.model = CameraModel::opencv;
        cam.distortion = {p[4], p[5], p[6], p[7]};
    } else if (model == "FULL_OPENCV") {
        cam.model = CameraModel::opencv;
        cam.distortion = {p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11]};
    } else if (model == "OPENCV_FISHEYE") {
        cam.model = CameraModel::fisheye;
        cam.distortion = {p[4], p[5], p[6], p[7]};
    } else if (model == "SIMPLE_RADIAL_FISHEYE") {
        cam.model = CameraModel::fisheye;
        cam.distortion = {p[3], 0, 0, 0};
    } else if (model == "RADIAL_FISHEYE") {
        cam.model = CameraModel::fisheye;
        cam.distortion = {p[3], p[4], 0, 0};
    } else if (model != "SIMPLE_PINHOLE" && model != "PINHOLE") {
        throw IoError(where, fmt::format("camera {}: model {} is not supported (use SIMPLE_PINHOLE, PINHOLE, "
                                         "SIMPLE_RADIAL, RADIAL, OPENCV, FULL_OPENCV, OPENCV_FISHEYE, "
                                         "SIMPLE_RADIAL_FISHEYE or RADIAL_FISHEYE)",
                                         c.id, model));
    }
    return cam;
}

Mat3<double> rotation_from_qvec(Vec4<double> q) {
    return quat_to_rotmat(q);
}

}  // namespace radiant
