// Scene files by extension, and what a lossy format changed.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "radiant/core/error.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/ply.hpp"
#include "radiant/io/scene_formats.hpp"

namespace radiant {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
    if (s.size() < suffix.size()) return false;
    return std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(),
                      [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

}  // namespace

SceneFormat scene_format_from_path(const std::string& path) {
    if (ends_with(path, ".compressed.ply")) return SceneFormat::compressed_ply;
    if (ends_with(path, ".ply")) return SceneFormat::ply;
    if (ends_with(path, ".splat")) return SceneFormat::splat;
    if (ends_with(path, ".spz")) return SceneFormat::spz;
    throw IoError(path, "unknown scene format (.ply, .compressed.ply, .splat or .spz expected)");
}

const char* scene_format_name(SceneFormat f) {
    switch (f) {
        case SceneFormat::ply:
            return "PLY";
        case SceneFormat::splat:
            return "splat";
        case SceneFormat::compressed_ply:
            return "compressed PLY";
        case SceneFormat::spz:
            return "SPZ";
    }
    return "?";
}

Scene read_scene(const std::string& path) {
    const SceneFormat f = scene_format_from_path(path);
    if (f == SceneFormat::ply) {
        const std::string bytes = read_file(path);
        // SuperSplat's files are often named plain .ply: tell them by their elements.
        const std::size_t end = bytes.find("end_header");
        if (bytes.substr(0, std::min(end, bytes.size())).find("element chunk") != std::string::npos)
            return decode_compressed_ply(bytes, path);
        return parse_ply(bytes, path);
    }
    const std::string bytes = read_file(path);
    if (f == SceneFormat::splat) return decode_splat(bytes, path);
    if (f == SceneFormat::spz) return decode_spz(bytes, path);
    return decode_compressed_ply(bytes, path);
}

void write_scene(const std::string& path, const Scene& scene) {
    switch (scene_format_from_path(path)) {
        case SceneFormat::ply:
            return write_ply(path, scene);
        case SceneFormat::splat:
            return write_file_atomic(path, encode_splat(scene));
        case SceneFormat::compressed_ply:
            return write_file_atomic(path, encode_compressed_ply(scene));
        case SceneFormat::spz:
            return write_file_atomic(path, encode_spz(scene));
    }
}

QuantisationError quantisation_error(const Scene& a, const Scene& b) {
    RADIANT_CHECK(a.size() == b.size(), "quantisation_error: scenes of different sizes");
    QuantisationError e;
    const std::size_t ka = std::size_t(a.sh_coeffs()), kb = std::size_t(b.sh_coeffs());
    for (std::size_t i = 0; i < a.size(); ++i) {
        for (std::size_t d = 0; d < 3; ++d) {
            e.position = std::max(e.position, std::abs(double(a.means[3 * i + d]) - b.means[3 * i + d]));
            e.log_scale =
                std::max(e.log_scale, std::abs(double(a.log_scales[3 * i + d]) - b.log_scales[3 * i + d]));
            const double ca = std::clamp(0.5 + kShC0 * a.sh[i * ka * 3 + d], 0.0, 1.0);
            const double cb = std::clamp(0.5 + kShC0 * b.sh[i * kb * 3 + d], 0.0, 1.0);
            e.colour = std::max(e.colour, std::abs(ca - cb));
        }
        e.opacity = std::max(
            e.opacity, std::abs(sigmoid(double(a.opacity_logits[i])) - sigmoid(double(b.opacity_logits[i]))));
        for (std::size_t coef = 1; coef < std::min(ka, kb); ++coef)
            for (std::size_t d = 0; d < 3; ++d)
                e.sh_rest = std::max(e.sh_rest, std::abs(double(a.sh[(i * ka + coef) * 3 + d]) -
                                                         b.sh[(i * kb + coef) * 3 + d]));
    }
    return e;
}

}  // namespace radiant
