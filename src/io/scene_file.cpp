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
            return "3DGS PLY";
        case SceneFormat::splat:
            return "splat";
        case SceneFormat::compressed_ply:
            return "compressed PLY";
        case SceneFormat::spz:
            return "SPZ";
    }
    return "?";
}

namespace {

// SuperSplat's files are often named plain .ply: tell them by their elements.
SceneFormat format_of(const std::string& path, std::string_view bytes) {
    const SceneFormat f = scene_format_from_path(path);
    if (f != SceneFormat::ply) return f;
    const std::string_view header = bytes.substr(0, std::min(bytes.find("end_header"), bytes.size()));
    return header.find("element chunk") != std::string_view::npos ? SceneFormat::compressed_ply : f;
}

}  // namespace

SceneFormat scene_file_format(const std::string& path) {
    return format_of(path, read_file(path));
}

Scene read_scene(const std::string& path) {
    const std::string bytes = read_file(path);
    Scene s;
    switch (format_of(path, bytes)) {
        case SceneFormat::ply:
            s = parse_ply(bytes, path);
            break;
        case SceneFormat::splat:
            s = decode_splat(bytes, path);
            break;
        case SceneFormat::spz:
            s = decode_spz(bytes, path);
            break;
        case SceneFormat::compressed_ply:
            s = decode_compressed_ply(bytes, path);
            break;
    }
    if (s.size() == 0) throw IoError(path, "holds no Gaussians");
    return s;
}

FormatFit check_format_fit(const Scene& s, SceneFormat format) {
    validate(s, fmt::format("scene to write as {}", scene_format_name(format)));
    FormatFit fit;
    // Log-scales a format clamps by design: [lo, hi], counted.
    auto count_outside = [&](double lo, double hi, const char* range) {
        for (float v : s.log_scales) fit.clamped += v < lo || v > hi ? 1 : 0;
        fit.what = fmt::format("log-scales outside {}", range);
    };
    switch (format) {
        case SceneFormat::ply:
            break;
        case SceneFormat::splat:
            // exp() must stay a normal, finite float32: e^−87 … e^88.
            for (std::size_t i = 0; i < s.log_scales.size(); ++i)
                if (s.log_scales[i] < -87.0f || s.log_scales[i] > 88.0f)
                    throw Error(
                        fmt::format("Gaussian {}: log-scale {} cannot be stored in .splat, whose scales "
                                    "are linear float32 (log-scales from -87 to 88)",
                                    i / 3, s.log_scales[i]));
            break;
        case SceneFormat::spz:
            for (std::size_t i = 0; i < s.means.size(); ++i)
                if (std::abs(double(s.means[i])) >= 2048.0)
                    throw Error(
                        fmt::format("Gaussian {}: position coordinate {} is beyond SPZ's reach (±2048: "
                                    "24-bit fixed point with 12 fractional bits)",
                                    i / 3, s.means[i]));
            count_outside(-10.0, 5.9375, "[-10, 5.94] (SPZ stores them as (s + 10)·16 in a byte)");
            break;
        case SceneFormat::compressed_ply:
            count_outside(-20.0, 20.0, "[-20, 20] (compressed PLY's chunk bounds)");
            break;
    }
    return fit;
}

FormatFit write_scene(const std::string& path, const Scene& scene) {
    const SceneFormat format = scene_format_from_path(path);
    const FormatFit fit = check_format_fit(scene, format);
    switch (format) {
        case SceneFormat::ply:
            write_ply(path, scene);
            break;
        case SceneFormat::splat:
            write_file_atomic(path, encode_splat(scene));
            break;
        case SceneFormat::compressed_ply:
            write_file_atomic(path, encode_compressed_ply(scene));
            break;
        case SceneFormat::spz:
            write_file_atomic(path, encode_spz(scene));
            break;
    }
    return fit;
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
