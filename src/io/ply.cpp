#include "radiant/io/ply.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <vector>

#include "radiant/core/error.hpp"
#include "radiant/io/file.hpp"

namespace radiant {
namespace {

enum class PlyType { int8, uint8, int16, uint16, int32, uint32, float32, float64 };

std::optional<PlyType> parse_type(std::string_view s) {
    if (s == "char" || s == "int8") return PlyType::int8;
    if (s == "uchar" || s == "uint8") return PlyType::uint8;
    if (s == "short" || s == "int16") return PlyType::int16;
    if (s == "ushort" || s == "uint16") return PlyType::uint16;
    if (s == "int" || s == "int32") return PlyType::int32;
    if (s == "uint" || s == "uint32") return PlyType::uint32;
    if (s == "float" || s == "float32") return PlyType::float32;
    if (s == "double" || s == "float64") return PlyType::float64;
    return std::nullopt;
}

std::size_t type_size(PlyType t) {
    switch (t) {
        case PlyType::int8:
        case PlyType::uint8:
            return 1;
        case PlyType::int16:
        case PlyType::uint16:
            return 2;
        case PlyType::int32:
        case PlyType::uint32:
        case PlyType::float32:
            return 4;
        case PlyType::float64:
            return 8;
    }
    return 0;
}

struct Property {
    std::string name;
    PlyType type;
    std::size_t offset = 0;  // byte offset within a binary record
};

struct Element {
    std::string name;
    std::uint64_t count = 0;
    std::vector<Property> properties;
    bool has_list = false;
    std::size_t record_size = 0;
};

struct Header {
    PlyFormat format = PlyFormat::ascii;
    std::vector<Element> elements;
    std::size_t data_offset = 0;  // first byte after "end_header\n"
};

std::vector<std::string_view> split_words(std::string_view line) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
        std::size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
        if (j > i) words.push_back(line.substr(i, j - i));
        i = j;
    }
    return words;
}

Header parse_header(std::string_view bytes, const std::string& name) {
    auto fail = [&](std::size_t line, const std::string& why) -> IoError {
        return IoError(name, fmt::format("bad PLY header at line {}: {}", line, why));
    };
    Header h;
    std::size_t pos = 0, line_no = 0;
    bool have_format = false;
    for (;;) {
        std::size_t eol = bytes.find('\n', pos);
        if (eol == std::string_view::npos || eol - pos > 4096)
            throw IoError(name,
                          line_no == 0 ? "not a PLY file (no header line)" : "PLY header has no end_header");
        std::string_view line = bytes.substr(pos, eol - pos);
        pos = eol + 1;
        ++line_no;
        auto w = split_words(line);
        if (line_no == 1) {
            if (w.size() != 1 || w[0] != "ply")
                throw IoError(name, "not a PLY file (first line is not 'ply')");
            continue;
        }
        if (w.empty() || w[0] == "comment" || w[0] == "obj_info") continue;
        if (w[0] == "format") {
            if (w.size() != 3) throw fail(line_no, "expected 'format <type> 1.0'");
            if (w[1] == "ascii")
                h.format = PlyFormat::ascii;
            else if (w[1] == "binary_little_endian")
                h.format = PlyFormat::binary_little_endian;
            else if (w[1] == "binary_big_endian")
                h.format = PlyFormat::binary_big_endian;
            else
                throw fail(line_no, fmt::format("unknown format '{}'", w[1]));
            if (w[2] != "1.0") throw fail(line_no, fmt::format("unsupported version '{}'", w[2]));
            have_format = true;
        } else if (w[0] == "element") {
            if (w.size() != 3) throw fail(line_no, "expected 'element <name> <count>'");
            Element e;
            e.name = std::string(w[1]);
            auto [p, ec] = std::from_chars(w[2].data(), w[2].data() + w[2].size(), e.count);
            if (ec != std::errc() || p != w[2].data() + w[2].size())
                throw fail(line_no, fmt::format("element count '{}' is not a non-negative integer", w[2]));
            h.elements.push_back(std::move(e));
        } else if (w[0] == "property") {
            if (h.elements.empty()) throw fail(line_no, "property before any element");
            Element& e = h.elements.back();
            if (w.size() == 5 && w[1] == "list") {
                if (!parse_type(w[2]) || !parse_type(w[3])) throw fail(line_no, "unknown list property type");
                e.has_list = true;
                e.properties.push_back({std::string(w[4]), *parse_type(w[3]), 0});
                continue;
            }
            if (w.size() != 3) throw fail(line_no, "expected 'property <type> <name>'");
            auto t = parse_type(w[1]);
            if (!t) throw fail(line_no, fmt::format("unknown property type '{}'", w[1]));
            for (const Property& p : e.properties)
                if (p.name == w[2]) throw fail(line_no, fmt::format("duplicate property '{}'", w[2]));
            e.properties.push_back({std::string(w[2]), *t, e.record_size});
            e.record_size += type_size(*t);
        } else if (w[0] == "end_header") {
            if (w.size() != 1) throw fail(line_no, "junk after end_header");
            break;
        } else {
            throw fail(line_no, fmt::format("unknown keyword '{}'", w[0]));
        }
    }
    if (!have_format) throw IoError(name, "PLY header has no format line");
    h.data_offset = pos;
    return h;
}

// Reads one binary scalar as double; `swap` for big-endian data.
double read_binary(const char* p, PlyType t, bool swap) {
    unsigned char b[8];
    std::size_t n = type_size(t);
    std::memcpy(b, p, n);
    if (swap)
        for (std::size_t i = 0; i < n / 2; ++i) std::swap(b[i], b[n - 1 - i]);
    switch (t) {
        case PlyType::int8:
            return double(std::int8_t(b[0]));
        case PlyType::uint8:
            return double(b[0]);
        case PlyType::int16: {
            std::int16_t v;
            std::memcpy(&v, b, 2);
            return v;
        }
        case PlyType::uint16: {
            std::uint16_t v;
            std::memcpy(&v, b, 2);
            return v;
        }
        case PlyType::int32: {
            std::int32_t v;
            std::memcpy(&v, b, 4);
            return v;
        }
        case PlyType::uint32: {
            std::uint32_t v;
            std::memcpy(&v, b, 4);
            return v;
        }
        case PlyType::float32: {
            float v;
            std::memcpy(&v, b, 4);
            return v;
        }
        case PlyType::float64: {
            double v;
            std::memcpy(&v, b, 8);
            return v;
        }
    }
    return 0;
}

// Where each scene value comes from: index into the vertex element's properties.
struct Layout {
    int x, y, z, dc[3], opacity, scale[3], rot[4];
    std::vector<int> rest;  // f_rest_0..M−1
    int degree = 0;
};

Layout resolve_layout(const Element& v, const std::string& name) {
    auto find = [&](const std::string& prop) -> int {
        for (std::size_t i = 0; i < v.properties.size(); ++i)
            if (v.properties[i].name == prop) return int(i);
        return -1;
    };
    auto need = [&](const std::string& prop) {
        int i = find(prop);
        if (i < 0)
            throw IoError(name, fmt::format("vertex element has no '{}' property (not a 3DGS PLY?)", prop));
        PlyType t = v.properties[std::size_t(i)].type;
        if (t != PlyType::float32 && t != PlyType::float64)
            throw IoError(name, fmt::format("property '{}' must be float or double", prop));
        return i;
    };
    Layout l;
    l.x = need("x");
    l.y = need("y");
    l.z = need("z");
    for (int c = 0; c < 3; ++c) l.dc[c] = need(fmt::format("f_dc_{}", c));
    l.opacity = need("opacity");
    for (int c = 0; c < 3; ++c) l.scale[c] = need(fmt::format("scale_{}", c));
    for (int c = 0; c < 4; ++c) l.rot[c] = need(fmt::format("rot_{}", c));
    int m = 0;
    while (find(fmt::format("f_rest_{}", m)) >= 0) l.rest.push_back(need(fmt::format("f_rest_{}", m++)));
    for (const Property& p : v.properties)
        if (p.name.rfind("f_rest_", 0) == 0 && int(l.rest.size()) <= std::atoi(p.name.c_str() + 7))
            throw IoError(
                name, fmt::format("f_rest properties are not numbered 0..{} (found '{}')", m - 1, p.name));
    switch (m) {
        case 0:
            l.degree = 0;
            break;
        case 9:
            l.degree = 1;
            break;
        case 24:
            l.degree = 2;
            break;
        case 45:
            l.degree = 3;
            break;
        default:
            throw IoError(name, fmt::format("{} f_rest properties; SH degree 1, 2, 3 need 9, 24 or 45", m));
    }
    return l;
}

}  // namespace

PointCloud read_point_cloud_ply(const std::string& path) {
    const std::string bytes = read_file(path);
    const Header h = parse_header(bytes, path);
    if (h.elements.empty() || h.elements[0].name != "vertex")
        throw IoError(path, "expected the 'vertex' element first");
    const Element& v = h.elements[0];
    if (v.has_list) throw IoError(path, "vertex element has list properties");
    auto find = [&](const char* n) {
        for (std::size_t i = 0; i < v.properties.size(); ++i)
            if (v.properties[i].name == n) return int(i);
        return -1;
    };
    const int ix = find("x"), iy = find("y"), iz = find("z"), ir = find("red"), ig = find("green"),
              ib = find("blue");
    if (ix < 0 || iy < 0 || iz < 0) throw IoError(path, "point cloud needs x, y and z properties");
    const bool colour = ir >= 0 && ig >= 0 && ib >= 0;
    const std::size_t data = bytes.size() - std::min(bytes.size(), h.data_offset);
    const std::size_t min_record = h.format == PlyFormat::ascii ? 2 * v.properties.size() : v.record_size;
    if (v.count > data / std::max<std::size_t>(1, min_record))
        throw IoError(path, fmt::format("truncated: {} points declared, the data holds fewer", v.count));
    PointCloud pc;
    const bool swap =
        (h.format == PlyFormat::binary_big_endian) == (std::endian::native == std::endian::little);
    std::istringstream ascii(h.format == PlyFormat::ascii ? std::string(bytes.substr(h.data_offset))
                                                          : std::string());
    std::vector<double> rec(v.properties.size());
    for (std::uint64_t g = 0; g < v.count; ++g) {
        if (h.format == PlyFormat::ascii) {
            for (double& r : rec)
                if (!(ascii >> r))
                    throw IoError(path, fmt::format("point {}: expected {} numbers", g, rec.size()));
        } else {
            const char* base = bytes.data() + h.data_offset + g * v.record_size;
            for (std::size_t p = 0; p < rec.size(); ++p)
                rec[p] = read_binary(base + v.properties[p].offset, v.properties[p].type, swap);
        }
        const Vec3<float> p{float(rec[std::size_t(ix)]), float(rec[std::size_t(iy)]),
                            float(rec[std::size_t(iz)])};
        if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z))
            throw IoError(path, fmt::format("point {} is not finite", g));
        pc.points.push_back(p);
        auto c8 = [&](int i) { return std::uint8_t(std::clamp(rec[std::size_t(i)], 0.0, 255.0)); };
        pc.colours.push_back(colour ? std::array<std::uint8_t, 3>{c8(ir), c8(ig), c8(ib)}
                                    : std::array<std::uint8_t, 3>{128, 128, 128});
    }
    return pc;
}

void write_point_cloud_ply(const std::string& path, const PointCloud& pc) {
    std::string out = fmt::format(
        "ply\nformat binary_little_endian 1.0\nelement vertex {}\nproperty float x\n"
        "property float y\nproperty float z\nproperty uchar red\nproperty uchar green\n"
        "property uchar blue\nend_header\n",
        pc.points.size());
    for (std::size_t i = 0; i < pc.points.size(); ++i) {
        for (int k = 0; k < 3; ++k) {
            const float f = pc.points[i][k];
            out.append(reinterpret_cast<const char*>(&f), 4);
        }
        for (int k = 0; k < 3; ++k) out += char(pc.colours[i][std::size_t(k)]);
    }
    write_file_atomic(path, out);
}

Scene parse_ply(std::string_view bytes, const std::string& name) {
    const Header h = parse_header(bytes, name);
    std::size_t vi = h.elements.size();
    std::size_t offset = h.data_offset;
    for (std::size_t i = 0; i < h.elements.size(); ++i) {
        const Element& e = h.elements[i];
        if (e.name == "vertex") {
            vi = i;
            break;
        }
        if (e.has_list)
            throw IoError(
                name, fmt::format("element '{}' before 'vertex' has list properties (unsupported)", e.name));
        if (h.format != PlyFormat::ascii) {
            if (e.count >
                (bytes.size() - std::min(bytes.size(), offset)) / std::max<std::size_t>(1, e.record_size))
                throw IoError(name, fmt::format("truncated: element '{}' does not fit the file", e.name));
            offset += std::size_t(e.count) * e.record_size;
        }
    }
    if (vi == h.elements.size()) throw IoError(name, "PLY has no 'vertex' element");
    const Element& v = h.elements[vi];
    if (v.has_list) throw IoError(name, "vertex element has list properties (not a 3DGS PLY)");
    const Layout l = resolve_layout(v, name);

    Scene s;
    s.sh_degree = l.degree;
    const int k = s.sh_coeffs();
    // Every record needs at least 1 byte (ascii: "0 " per property), so a count larger than the data is an
    // error before anything is allocated.
    const std::size_t data = bytes.size() - std::min(bytes.size(), offset);
    const std::size_t min_record = h.format == PlyFormat::ascii ? 2 * v.properties.size() : v.record_size;
    if (v.count > data / std::max<std::size_t>(1, min_record))
        throw IoError(
            name, fmt::format("truncated: header declares {} vertices ({} bytes each) but {} bytes of data "
                              "follow the header",
                              v.count, min_record, data));
    const std::size_t n = std::size_t(v.count);
    s.resize(n);

    std::vector<double> rec(v.properties.size());
    std::size_t line_no = 0;
    // ascii: skip the records of elements before vertex
    std::size_t pos = offset;
    auto next_line = [&]() -> std::string_view {
        while (pos < bytes.size()) {
            std::size_t eol = bytes.find('\n', pos);
            if (eol == std::string_view::npos) eol = bytes.size();
            std::string_view line = bytes.substr(pos, eol - pos);
            pos = eol + 1;
            ++line_no;
            if (!split_words(line).empty()) return line;
        }
        return {};
    };
    if (h.format == PlyFormat::ascii)
        for (std::size_t i = 0; i < vi; ++i)
            for (std::uint64_t r = 0; r < h.elements[i].count; ++r) next_line();

    const bool swap =
        (h.format == PlyFormat::binary_big_endian) == (std::endian::native == std::endian::little);
    for (std::size_t g = 0; g < n; ++g) {
        if (h.format == PlyFormat::ascii) {
            std::string_view line = next_line();
            auto words = split_words(line);
            if (words.empty())
                throw IoError(name, fmt::format("truncated: vertex {} of {} is missing", g, n));
            if (words.size() != v.properties.size())
                throw IoError(name, fmt::format("vertex {} has {} values, expected {}", g, words.size(),
                                                v.properties.size()));
            for (std::size_t p = 0; p < words.size(); ++p) {
                const char* b = words[p].data();
                const char* e = b + words[p].size();
                std::from_chars_result r;
                if (v.properties[p].type == PlyType::float32) {
                    float f;
                    r = std::from_chars(b, e, f);
                    rec[p] = f;
                } else {
                    r = std::from_chars(b, e, rec[p]);
                }
                if (r.ec != std::errc() || r.ptr != e)
                    throw IoError(name, fmt::format("vertex {}: '{}' is not a number (property '{}')", g,
                                                    words[p], v.properties[p].name));
            }
        } else {
            const char* base = bytes.data() + offset + g * v.record_size;
            for (std::size_t p = 0; p < v.properties.size(); ++p)
                rec[p] = read_binary(base + v.properties[p].offset, v.properties[p].type, swap);
        }
        auto get = [&](int p) {
            float f = float(rec[std::size_t(p)]);
            if (!std::isfinite(f))
                throw IoError(name, fmt::format("vertex {}: property '{}' is {}", g,
                                                v.properties[std::size_t(p)].name, rec[std::size_t(p)]));
            return f;
        };
        s.means[3 * g] = get(l.x);
        s.means[3 * g + 1] = get(l.y);
        s.means[3 * g + 2] = get(l.z);
        for (int c = 0; c < 3; ++c) s.log_scales[3 * g + std::size_t(c)] = get(l.scale[c]);
        for (int c = 0; c < 4; ++c) s.quats[4 * g + std::size_t(c)] = get(l.rot[c]);
        s.opacity_logits[g] = get(l.opacity);
        float* sh = s.sh.data() + g * std::size_t(k) * 3;
        for (int c = 0; c < 3; ++c) sh[c] = get(l.dc[c]);
        for (int c = 0; c < 3; ++c)
            for (int j = 1; j < k; ++j) sh[3 * j + c] = get(l.rest[std::size_t(c * (k - 1) + j - 1)]);
        if (s.quats[4 * g] == 0 && s.quats[4 * g + 1] == 0 && s.quats[4 * g + 2] == 0 &&
            s.quats[4 * g + 3] == 0)
            throw IoError(name, fmt::format("vertex {}: quaternion rot_0..3 is zero", g));
    }
    return s;
}

Scene read_ply(const std::string& path) {
    return parse_ply(read_file(path), path);
}

std::string format_ply(const Scene& s, const PlyWriteOptions& o) {
    validate(s, "PLY writer");
    const std::size_t n = s.size();
    const int k = s.sh_coeffs();
    std::vector<std::string> names{"x", "y", "z"};
    if (o.normals) names.insert(names.end(), {"nx", "ny", "nz"});
    for (int c = 0; c < 3; ++c) names.push_back(fmt::format("f_dc_{}", c));
    for (int j = 0; j < 3 * (k - 1); ++j) names.push_back(fmt::format("f_rest_{}", j));
    names.push_back("opacity");
    for (int c = 0; c < 3; ++c) names.push_back(fmt::format("scale_{}", c));
    for (int c = 0; c < 4; ++c) names.push_back(fmt::format("rot_{}", c));

    std::string out = "ply\nformat ";
    out += o.format == PlyFormat::ascii                  ? "ascii"
           : o.format == PlyFormat::binary_little_endian ? "binary_little_endian"
                                                         : "binary_big_endian";
    out += fmt::format(" 1.0\nelement vertex {}\n", n);
    for (const auto& nm : names) out += "property float " + nm + "\n";
    out += "end_header\n";

    std::vector<float> rec(names.size());
    const bool swap =
        (o.format == PlyFormat::binary_big_endian) == (std::endian::native == std::endian::little);
    if (o.format != PlyFormat::ascii) out.reserve(out.size() + n * rec.size() * 4);
    for (std::size_t g = 0; g < n; ++g) {
        std::size_t p = 0;
        for (int c = 0; c < 3; ++c) rec[p++] = s.means[3 * g + std::size_t(c)];
        if (o.normals)
            for (int c = 0; c < 3; ++c) rec[p++] = 0.0f;
        const float* sh = s.sh_of(g);
        for (int c = 0; c < 3; ++c) rec[p++] = sh[c];
        for (int c = 0; c < 3; ++c)
            for (int j = 1; j < k; ++j) rec[p++] = sh[3 * j + c];
        rec[p++] = s.opacity_logits[g];
        for (int c = 0; c < 3; ++c) rec[p++] = s.log_scales[3 * g + std::size_t(c)];
        for (int c = 0; c < 4; ++c) rec[p++] = s.quats[4 * g + std::size_t(c)];
        if (o.format == PlyFormat::ascii) {
            for (std::size_t i = 0; i < rec.size(); ++i) {
                char buf[32];
                auto r = std::to_chars(buf, buf + sizeof buf, rec[i]);  // shortest exact representation
                out.append(buf, r.ptr);
                out += i + 1 < rec.size() ? ' ' : '\n';
            }
        } else {
            for (float f : rec) {
                std::uint32_t u = std::bit_cast<std::uint32_t>(f);
                if (swap) u = __builtin_bswap32(u);
                char b[4];
                std::memcpy(b, &u, 4);
                out.append(b, 4);
            }
        }
    }
    return out;
}

void write_ply(const std::string& path, const Scene& scene, const PlyWriteOptions& options) {
    const std::string bytes = format_ply(scene, options);
    write_file_atomic(path, bytes);
}

}  // namespace radiant
