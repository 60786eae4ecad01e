#include "radiant/core/render_settings.hpp"

#include <fmt/format.h>

#include <cmath>

#include "radiant/core/error.hpp"

namespace radiant {

const char* to_string(TraceMode mode) {
    return mode == TraceMode::replay ? "replay" : "trace";
}
const char* to_string(Shading shading) {
    return shading == Shading::ewa ? "ewa" : "ray";
}

void validate(const RenderSettings& s) {
    auto fail = [](const std::string& reason) { throw Error("render settings: " + reason); };
    if (s.tile_size < 1 || s.tile_size > 64) fail(fmt::format("tile_size {} is not in 1..64", s.tile_size));
    if (!(s.radius_scale > 0) || !std::isfinite(s.radius_scale))
        fail(fmt::format("radius_scale {} must be positive", s.radius_scale));
    if (!(s.alpha_cutoff > 0 && s.alpha_cutoff < 0.99))
        fail(fmt::format("alpha_cutoff {} is not in (0, 0.99)", s.alpha_cutoff));
    if (s.max_splat_steps < 0) fail(fmt::format("max_splat_steps {} is negative", s.max_splat_steps));
    if (s.trace_mode == TraceMode::trace && s.max_splat_steps == 0)
        fail("trace mode stores max_splat_steps hits per pixel: set max_splat_steps > 0");
    if (!(s.transmittance_threshold >= 0 && s.transmittance_threshold < 1))
        fail(fmt::format("transmittance_threshold {} is not in [0, 1)", s.transmittance_threshold));
    if (s.max_list_entries < 0) fail("max_list_entries is negative");
    if (!(s.max_anisotropy == 0 || s.max_anisotropy >= 1))
        fail(fmt::format("max_anisotropy {} must be 0 (off) or at least 1", s.max_anisotropy));
    if (s.sh_degree < 0 || s.sh_degree > 3) fail(fmt::format("sh_degree {} is not in 0..3", s.sh_degree));
    if (!(s.loss_grad_clip >= 0)) fail("loss_grad_clip is negative");
    if (!(s.near_plane > 0) || !(s.far_plane > s.near_plane))
        fail(fmt::format("near/far planes {} / {} must satisfy 0 < near < far", s.near_plane, s.far_plane));
    if (!(s.eps2d >= 0) || !std::isfinite(s.eps2d)) fail(fmt::format("eps2d {} is negative", s.eps2d));
    if (s.antialiased && s.shading != Shading::ewa)
        fail("antialiased is the ewa model's 2D filter; the ray model filters in 3D already (eps2d)");
    if (s.antialiased && !(s.eps2d > 0)) fail("antialiased needs eps2d > 0 (the filter it compensates)");
    for (double b : s.background)
        if (!std::isfinite(b)) fail("background is not finite");
}

}  // namespace radiant
