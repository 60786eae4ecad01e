#pragma once
// Render settings: the reference system's parameters, kept by name (DESIGN.md §4).
#include <array>
#include <cstdint>
#include <string>

namespace radiant {

// How the forward leaves what the backward needs (DESIGN.md §1.4).
enum class TraceMode {
    replay,  // per pixel: hit count, last list position, final T; the backward re-walks the tile list
    trace,   // per pixel: the hits themselves (splat id, α, T before), up to max_splat_steps
};

enum class Shading { ewa, ray };

const char* to_string(TraceMode mode);
const char* to_string(Shading shading);

struct RenderSettings {
    int tile_size = 16;  // tile edge in pixels
    // Cap on the footprint support in σ. gsplat's 3.33 is just above √(2 ln 255) ≈ 3.329, so the cap never
    // binds and every footprint ends where α falls below alpha_cutoff: no truncation edge in the image or
    // the gradients (Inria's 3 cuts opaque Gaussians off at α ≈ 0.011; bonsai 30k: 32.89 → 33.30 dB).
    double radius_scale = 3.33;
    double alpha_cutoff = 1.0 / 255.0;      // skip α below it; sets the opacity-aware extent
    int max_splat_steps = 0;                // hit cap per pixel and trace stride (0 = unlimited)
    double transmittance_threshold = 1e-4;  // stop when T would fall below
    std::int64_t max_list_entries = 0;      // initial tile-list capacity (0 = sized on demand); always grown
    double max_anisotropy = 0.0;            // clamp on largest/smallest scale (0 = off)
    int sh_degree = 3;                      // active SH degree, at most the scene's
    double loss_grad_clip = 0.0;            // clamp on the per-pixel loss gradient (0 = off)
    double near_plane = 0.01, far_plane = 1e10;
    // Low-pass in px²: added to the 2D covariance (`ewa`); as a 3D filter at the Gaussian's depth (`ray`,
    // ray_filter_variance).
    double eps2d = 0.3;
    // `ewa`: scale each splat's opacity so the low-pass keeps its energy (Mip-Splatting's 2D filter,
    // gsplat's "antialiased" mode): renders at lower resolutions than trained stay faithful.
    bool antialiased = false;
    std::array<double, 3> background{0.0, 0.0, 0.0};
    TraceMode trace_mode = TraceMode::replay;
    Shading shading = Shading::ewa;
};

// Throws Error naming the first setting out of range.
void validate(const RenderSettings& settings);

}  // namespace radiant
