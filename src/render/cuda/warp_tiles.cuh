#pragma once
// The tiles each Gaussian's footprint touches (core's footprint_touches_tile, row by row), walked by a warp.
// A lane walking its own Gaussian's rect costs the whole warp the largest rect among its 32 lanes, and a few
// large footprints among many small ones (every real scene) leave 31 lanes idle for most of the walk. So a
// rect of up to kOwnWalkTiles tiles is walked by its own lane; larger ones by the warp together, 32 tiles at
// a time, one Gaussian after another. Both walks take the tiles in the same row-major order, so projection
// (which counts) and binning (which writes at the counted offsets) agree tile for tile.
#include "radiant/core/project.hpp"

namespace radiant::cuda {

constexpr int kOwnWalkTiles = 32;

// Every lane of the warp must call this (the warp walks share shuffles). For each touched tile of a lane's
// Gaussian (when `valid`), some lane calls emit(base + k, tile, id) with k the tile's rank in that Gaussian's
// row-major walk and base, id the owning lane's. Returns the lane's own count (0 when not valid).
template <class Emit>
__device__ int warp_walk_touched_tiles(bool valid, const Footprint<float>& f, int tile_size, int tiles_x,
                                       int width, int height, std::uint32_t base, std::uint32_t id,
                                       Emit emit) {
    constexpr unsigned kAll = 0xffffffffu;
    const int lane = int(threadIdx.x) & 31;
    const int area = valid ? f.rect.count() : 0;
    int count = 0;
    if (area > 0 && area <= kOwnWalkTiles)
        for_each_touched_tile(f, tile_size, tiles_x, width, height,
                              [&](int tile) { emit(base + std::uint32_t(count++), tile, id); });
    for (unsigned large = __ballot_sync(kAll, area > kOwnWalkTiles); large != 0; large &= large - 1) {
        const int src = __ffs(int(large)) - 1;
        const Vec2<float> mean{__shfl_sync(kAll, f.mean2d.x, src), __shfl_sync(kAll, f.mean2d.y, src)};
        const Sym2<float> conic{__shfl_sync(kAll, f.conic.a, src), __shfl_sync(kAll, f.conic.b, src),
                                __shfl_sync(kAll, f.conic.c, src)};
        const float extent_sq = __shfl_sync(kAll, f.extent_sq, src);
        const int x0 = __shfl_sync(kAll, f.rect.x0, src), y0 = __shfl_sync(kAll, f.rect.y0, src);
        const int w = __shfl_sync(kAll, f.rect.x1, src) - x0;
        const int tiles = w * (__shfl_sync(kAll, f.rect.y1, src) - y0);
        const std::uint32_t src_base = __shfl_sync(kAll, base, src), src_id = __shfl_sync(kAll, id, src);
        int found = 0;
        for (int k0 = 0; k0 < tiles; k0 += 32) {
            const int k = k0 + lane, tx = x0 + k % w, ty = y0 + k / w;
            const bool hit =
                k < tiles && footprint_touches_tile(mean, conic, extent_sq, tx, ty, tile_size, width, height);
            const unsigned hits = __ballot_sync(kAll, hit);
            if (hit)
                emit(src_base + std::uint32_t(found + __popc(hits & ((1u << lane) - 1u))), ty * tiles_x + tx,
                     src_id);
            found += __popc(hits);
        }
        if (lane == src) count = found;
    }
    return count;
}

}  // namespace radiant::cuda
