// antimatter15's .splat (scene_formats.hpp): 32 bytes per splat, DC colour only.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "byte_io.hpp"
#include "radiant/io/scene_formats.hpp"

namespace radiant {

std::string encode_splat(const Scene& s) {
    validate(s, "scene to write as .splat");
    std::string out;
    out.reserve(s.size() * 32);
    const std::size_t k = std::size_t(s.sh_coeffs()) * 3;
    for (std::size_t i = 0; i < s.size(); ++i) {
        for (int c = 0; c < 3; ++c) detail::put(out, s.means[3 * i + std::size_t(c)]);
        for (int c = 0; c < 3; ++c) detail::put(out, std::exp(s.log_scales[3 * i + std::size_t(c)]));
        for (int c = 0; c < 3; ++c)
            detail::put(out, detail::to_u8((0.5 + kShC0 * s.sh[i * k + std::size_t(c)]) * 255));
        detail::put(out, detail::to_u8(sigmoid(double(s.opacity_logits[i])) * 255));
        const Vec4<float> q = s.quat(i);
        const double n =
            std::sqrt(double(q.x) * q.x + double(q.y) * q.y + double(q.z) * q.z + double(q.w) * q.w);
        for (float v : {q.x, q.y, q.z, q.w}) detail::put(out, detail::to_u8(v / n * 128 + 128));
    }
    return out;
}

Scene decode_splat(std::string_view bytes, const std::string& name) {
    if (bytes.size() % 32 != 0)
        throw IoError(name, fmt::format("{} bytes is not a whole number of 32-byte splats", bytes.size()));
    Scene s;
    s.sh_degree = 0;
    s.resize(bytes.size() / 32);
    detail::ByteReader r(bytes, name);
    for (std::size_t i = 0; i < s.size(); ++i) {
        for (int c = 0; c < 3; ++c) s.means[3 * i + std::size_t(c)] = r.get<float>();
        for (int c = 0; c < 3; ++c) {
            const float scale = r.get<float>();
            if (!(scale > 0) || !std::isfinite(scale))
                throw IoError(name, fmt::format("splat {}: scale {} is not positive and finite", i, scale));
            s.log_scales[3 * i + std::size_t(c)] = std::log(scale);
        }
        for (int c = 0; c < 3; ++c)
            s.sh[3 * i + std::size_t(c)] = float((r.get<std::uint8_t>() / 255.0 - 0.5) / kShC0);
        const double a = std::clamp(r.get<std::uint8_t>() / 255.0, 0.5 / 255, 1 - 0.5 / 255);
        s.opacity_logits[i] = float(std::log(a / (1 - a)));
        float q[4];
        for (float& v : q) v = float((r.get<std::uint8_t>() - 128.0) / 128.0);
        if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0)
            throw IoError(name, fmt::format("splat {}: zero rotation", i));
        for (int c = 0; c < 4; ++c) s.quats[4 * i + std::size_t(c)] = q[c];
    }
    return detail::checked_scene(std::move(s), name);
}

}  // namespace radiant
