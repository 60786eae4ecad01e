#pragma once
// Writes small COLMAP models (binary and text) for tests, following COLMAP's read_write_model layouts.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace radiant::test {

struct FixtureCamera {
    std::uint32_t id;
    int model_id;
    std::string model;
    int width, height;
    std::vector<double> params;
};
struct FixtureImage {
    std::uint32_t id;
    double q[4], t[3];
    std::uint32_t camera_id;
    std::string name;
};
struct FixturePoint {
    double xyz[3];
    std::uint8_t rgb[3];
};

class Bytes {
  public:
    template <class V>
    Bytes& put(V v) {
        s.append(reinterpret_cast<const char*>(&v), sizeof v);
        return *this;
    }
    std::string s;
};

inline std::string cameras_bin(const std::vector<FixtureCamera>& cams) {
    Bytes b;
    b.put<std::uint64_t>(cams.size());
    for (const auto& c : cams) {
        b.put<std::uint32_t>(c.id)
            .put<std::int32_t>(c.model_id)
            .put<std::uint64_t>(c.width)
            .put<std::uint64_t>(c.height);
        for (double p : c.params) b.put(p);
    }
    return b.s;
}
inline std::string images_bin(const std::vector<FixtureImage>& ims) {
    Bytes b;
    b.put<std::uint64_t>(ims.size());
    for (const auto& im : ims) {
        b.put<std::uint32_t>(im.id);
        for (double v : im.q) b.put(v);
        for (double v : im.t) b.put(v);
        b.put<std::uint32_t>(im.camera_id);
        b.s += im.name;
        b.s += '\0';
        b.put<std::uint64_t>(2);  // two observations
        for (int k = 0; k < 2; ++k) b.put(10.0 * k).put(20.0).put<std::int64_t>(k);
    }
    return b.s;
}
inline std::string points_bin(const std::vector<FixturePoint>& pts) {
    Bytes b;
    b.put<std::uint64_t>(pts.size());
    for (std::size_t i = 0; i < pts.size(); ++i) {
        b.put<std::uint64_t>(i + 1);
        for (double v : pts[i].xyz) b.put(v);
        for (std::uint8_t v : pts[i].rgb) b.put(v);
        b.put(0.5).put<std::uint64_t>(1).put<std::int32_t>(1).put<std::int32_t>(0);
    }
    return b.s;
}
inline std::string cameras_txt(const std::vector<FixtureCamera>& cams) {
    std::string s = "# Camera list with one line of data per camera:\n";
    for (const auto& c : cams) {
        s += fmt::format("{} {} {} {}", c.id, c.model, c.width, c.height);
        for (double p : c.params) s += fmt::format(" {:.17g}", p);
        s += "\n";
    }
    return s;
}
inline std::string images_txt(const std::vector<FixtureImage>& ims) {
    std::string s = "# Image list with two lines of data per image:\n";
    for (const auto& im : ims)
        s += fmt::format(
            "{} {:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {} {}\n0 20 1 10 20 -1\n", im.id,
            im.q[0], im.q[1], im.q[2], im.q[3], im.t[0], im.t[1], im.t[2], im.camera_id, im.name);
    return s;
}
inline std::string points_txt(const std::vector<FixturePoint>& pts) {
    std::string s = "# 3D point list\n";
    for (std::size_t i = 0; i < pts.size(); ++i)
        s += fmt::format("{} {:.17g} {:.17g} {:.17g} {} {} {} 0.5 1 0\n", i + 1, pts[i].xyz[0], pts[i].xyz[1],
                         pts[i].xyz[2], pts[i].rgb[0], pts[i].rgb[1], pts[i].rgb[2]);
    return s;
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace radiant::test
