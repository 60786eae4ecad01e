#pragma once
// The shared-memory batch both raster kernels stream a tile's list through: one Gaussian per thread.
#include "stages.hpp"

namespace radiant::cuda {

template <int N>
struct SplatBatch {
    float2 mean[N];
    float4 conic_opacity[N];
    float extent[N];
    float3 colour[N];
    std::uint32_t gid[N];

    // Slot `slot` ← the Gaussian at list position `idx`.
    __device__ void load(int slot, std::uint32_t idx, const RasterFwdArgs& a) {
        const std::uint32_t g = a.isect_gids[idx];
        gid[slot] = g;
        mean[slot] = a.means2d[g];
        conic_opacity[slot] = a.conic_opacity[g];
        extent[slot] = a.extent_sq[g];
        colour[slot] = make_float3(a.colours[3 * g], a.colours[3 * g + 1], a.colours[3 * g + 2]);
    }
};

}  // namespace radiant::cuda
