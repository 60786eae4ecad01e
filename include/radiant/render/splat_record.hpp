#pragma once
// A projected Gaussian as one value, and its raster gradient: what Gaussian-parallel training (issue 25)
// sends from the rank owning a Gaussian to the rank rendering a view, and back. The GPU backend gathers
// them from its per-Gaussian arrays and scatters them into another rank's (render/cuda), so a view can be
// rasterised from Gaussians projected elsewhere. Plain floats: they travel in byte buffers.
#include <cstdint>

#include "radiant/core/ray_project.hpp"

namespace radiant {

// What binning and the raster read of one projected Gaussian (both shading models).
struct SplatRecord {
    float mean2d[2];
    float conic_opacity[4];  // ewa: conic a, b, c; both: opacity
    float extent_sq, depth;
    float colour[3];
    std::int32_t rect[4];  // tile rect x0, y0, x1, y1
    std::int32_t radius;
    std::uint32_t tiles_touched, tile_mask;  // tile_mask: ewa only (binning lists its bits)
};

// The `ray` model's camera-frame footprint beside the record.
struct RayFootprintRecord {
    float mean_opacity[4];
    float whitening[9];  // row-major
    float bounds[4];     // silhouette x0 x1 y0 y1
};

// Floats of one record's raster gradient: ewa ∂L/∂ of mean2d (2), conic (3), colour (3), opacity (1); `ray`
// the camera-frame RayHitSums.
constexpr int kEwaSplatGradSize = 9;
constexpr int splat_grad_size(bool ray) {
    return ray ? kRayHitSumsSize : kEwaSplatGradSize;
}

}  // namespace radiant
