#pragma once
// The tiles each Gaussian's footprint touches (core's footprint_touches_tile), found and listed by a warp.
// Footprint rects vary wildly in size within a warp (every real scene has a few large splats among many small
// ones), so a lane walking its own rect costs the whole warp the largest rect among its 32 lanes. Instead:
// - a rect of up to kMaskTiles tiles is tested by the warp together: the 32 lanes take the warp's (rect,
//   tile) candidates 32 at a time, and the projection keeps each Gaussian's hits as a bit mask over its rect
//   (bit k: the rect's k-th tile in row-major order);
// - binning then lists the masked tiles, again 32 pairs at a time over the warp, without testing again and
//   with each store next to its neighbour's;
// - a larger rect is walked by the warp together, 32 tiles at a time, one Gaussian after another, by both.
// Each Gaussian's pairs fill [base, base + count) whatever the order within; the pair sort by tile then
// leaves each tile's pairs in the Gaussians' depth order.
#include "radiant/core/project.hpp"

namespace radiant::cuda {

constexpr int kMaskTiles = 32;
constexpr unsigned kAllLanes = 0xffffffffu;

// Warp-wide exclusive scan of `v`; `total` gets the sum over the warp.
__device__ inline int warp_exclusive_scan(int v, int& total) {
    const int lane = int(threadIdx.x) & 31;
    int inclusive = v;
    for (int d = 1; d < 32; d <<= 1) {
        const int up = __shfl_up_sync(kAllLanes, inclusive, d);
        if (lane >= d) inclusive += up;
    }
    total = __shfl_sync(kAllLanes, inclusive, 31);
    return inclusive - v;
}

// The lane whose run [start, start + its length) holds item k, for non-decreasing `start` with lane 0's at 0
// and k below the total: the last lane whose start is ≤ k (lanes with empty runs share their successor's
// start, so the last one is the lane that owns k).
__device__ inline int warp_owner_of(int start, int k) {
    int s = 0;
    for (int step = 16; step > 0; step >>= 1)
        if (__shfl_sync(kAllLanes, start, s + step) <= k) s += step;
    return s;
}

// Position of the r-th (from 0) set bit of m, which has more than r set bits.
__device__ inline int nth_set_bit(unsigned m, int r) {
    int pos = 0;
    for (int w = 16; w > 0; w >>= 1) {
        const unsigned low = m & ((1u << w) - 1u);
        const int c = __popc(low);
        if (r >= c) {
            r -= c;
            m >>= w;
            pos += w;
        } else {
            m = low;
        }
    }
    return pos;
}

// Lane src's footprint as the tile test needs it (every lane of the warp must call this).
struct LaneFootprint {
    Vec2<float> mean;
    Sym2<float> conic;
    float extent_sq;
    int x0, y0, w, h;  // the tile rect
};
__device__ inline LaneFootprint shfl_footprint(const Footprint<float>& f, int src) {
    LaneFootprint o;
    o.mean = {__shfl_sync(kAllLanes, f.mean2d.x, src), __shfl_sync(kAllLanes, f.mean2d.y, src)};
    o.conic = {__shfl_sync(kAllLanes, f.conic.a, src), __shfl_sync(kAllLanes, f.conic.b, src),
               __shfl_sync(kAllLanes, f.conic.c, src)};
    o.extent_sq = __shfl_sync(kAllLanes, f.extent_sq, src);
    o.x0 = __shfl_sync(kAllLanes, f.rect.x0, src);
    o.y0 = __shfl_sync(kAllLanes, f.rect.y0, src);
    o.w = __shfl_sync(kAllLanes, f.rect.x1, src) - o.x0;
    o.h = __shfl_sync(kAllLanes, f.rect.y1, src) - o.y0;
    return o;
}

// Every lane of the warp must call this. Returns the lane's mask of touched tiles when its Gaussian is valid
// and its rect holds 1..kMaskTiles tiles, else 0.
__device__ inline unsigned warp_touched_tile_masks(bool valid, const Footprint<float>& f, int tile_size,
                                                   int width, int height) {
    const int lane = int(threadIdx.x) & 31;
    const int area = valid ? f.rect.count() : 0;
    const int own = area <= kMaskTiles ? area : 0;
    int total = 0;
    const int start = warp_exclusive_scan(own, total);
    unsigned mask = 0;
    for (int k0 = 0; k0 < total; k0 += 32) {
        const int k = k0 + lane;
        const int s = warp_owner_of(start, k < total ? k : total - 1);
        const LaneFootprint o = shfl_footprint(f, s);
        const int b = k - __shfl_sync(kAllLanes, start, s);
        const bool hit = k < total && footprint_touches_tile(o.mean, o.conic, o.extent_sq, o.x0 + b % o.w,
                                                             o.y0 + b / o.w, tile_size, width, height);
        const unsigned hits = __ballot_sync(kAllLanes, hit);
        // this lane's candidates within [k0, k0 + 32)
        const int lo = max(start, k0), hi = min(start + own, k0 + 32);
        if (lo < hi) {
            unsigned bits = hits >> (lo - k0);
            if (hi - lo < 32) bits &= (1u << (hi - lo)) - 1u;
            mask |= bits << (lo - start);
        }
    }
    return mask;
}

// Every lane of the warp must call this. Lists each lane's masked tiles (rect as in its Footprint, mask from
// warp_touched_tile_masks): emit(base + r, tile, id) for its r-th tile.
template <class Emit>
__device__ void warp_emit_masked_tiles(unsigned mask, const TileRect& rect, int tiles_x, std::uint32_t base,
                                       std::uint32_t id, Emit emit) {
    const int lane = int(threadIdx.x) & 31;
    int total = 0;
    const int start = warp_exclusive_scan(__popc(mask), total);
    for (int k0 = 0; k0 < total; k0 += 32) {
        const int k = k0 + lane;
        const int s = warp_owner_of(start, k < total ? k : total - 1);
        const unsigned m = __shfl_sync(kAllLanes, mask, s);
        const int x0 = __shfl_sync(kAllLanes, rect.x0, s), y0 = __shfl_sync(kAllLanes, rect.y0, s);
        const int w = __shfl_sync(kAllLanes, rect.x1, s) - x0;
        const std::uint32_t b0 = __shfl_sync(kAllLanes, base, s), g = __shfl_sync(kAllLanes, id, s);
        const int r = k - __shfl_sync(kAllLanes, start, s);
        if (k < total) {
            const int bit = nth_set_bit(m, r);
            emit(b0 + std::uint32_t(r), (y0 + bit / w) * tiles_x + x0 + bit % w, g);
        }
    }
}

// Every lane of the warp must call this. For each lane whose valid Gaussian's rect holds more than kMaskTiles
// tiles, the warp walks the rect and some lane calls emit(base + k, tile, id) for its k-th touched tile.
// Returns the lane's own count (0 for the others).
template <class Emit>
__device__ int warp_walk_large_rects(bool valid, const Footprint<float>& f, int tile_size, int tiles_x,
                                     int width, int height, std::uint32_t base, std::uint32_t id, Emit emit) {
    const int lane = int(threadIdx.x) & 31;
    const bool large = valid && f.rect.count() > kMaskTiles;
    int count = 0;
    for (unsigned todo = __ballot_sync(kAllLanes, large); todo != 0; todo &= todo - 1) {
        const int src = __ffs(int(todo)) - 1;
        const LaneFootprint o = shfl_footprint(f, src);
        const int tiles = o.w * o.h;
        const std::uint32_t src_base = __shfl_sync(kAllLanes, base, src),
                            src_id = __shfl_sync(kAllLanes, id, src);
        int found = 0;
        for (int k0 = 0; k0 < tiles; k0 += 32) {
            const int k = k0 + lane, tx = o.x0 + k % o.w, ty = o.y0 + k / o.w;
            const bool hit = k < tiles && footprint_touches_tile(o.mean, o.conic, o.extent_sq, tx, ty,
                                                                 tile_size, width, height);
            const unsigned hits = __ballot_sync(kAllLanes, hit);
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
