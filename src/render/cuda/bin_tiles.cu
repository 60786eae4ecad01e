#include <type_traits>

#include "radiant/core/ray_project.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"
#include "warp_tiles.cuh"

namespace radiant::cuda {
namespace {

__global__ void iota_kernel(std::uint32_t* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = std::uint32_t(i);
}

__global__ void gather_counts_kernel(GatherCountsArgs a) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a.n) a.counts_in_order[i] = a.tiles_touched[a.order[i]];
}

// One thread per Gaussian, taken in depth order: lists its tiles at its prefix-sum offset, from the mask the
// projection kept (large rects walked by the warp again, as the projection counted them), so that the stable
// sort by tile leaves each tile's pairs by (depth, index), as the CPU reference's sort by (key, gid).
template <class Key>
__global__ void bin_tiles_kernel(BinArgs a, Key* keys) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    Footprint<float> f{};
    std::uint32_t g = 0, base = 0, mask = 0;
    bool valid = false;
    if (i < a.n) {
        g = a.order[i];
        const int4 r = a.tile_rects[g];
        f.rect = {r.x, r.y, r.z, r.w};  // (x0, y0, x1, y1)
        valid = !f.rect.empty();
        if (valid) {
            base = a.offsets[i];
            if (f.rect.count() <= kMaskTiles) {
                mask = a.tile_masks[g];
            } else {
                f.mean2d = {a.means2d[g].x, a.means2d[g].y};
                const float4 co = a.conic_opacity[g];
                f.conic = {co.x, co.y, co.z};
                f.extent_sq = a.extent_sq[g];
            }
        }
    }
    const auto store = [&](std::uint32_t pos, int tile, std::uint32_t gid) {
        keys[pos] = Key(tile);
        a.isect_gids[pos] = gid;
    };
    warp_emit_masked_tiles(mask, f.rect, a.tiles_x, base, g, store);
    warp_walk_large_rects(valid, f, a.tile_size, a.tiles_x, a.width, a.height, base, g, store);
}

// The `ray` model's binning, as bin_tiles_kernel: the tiles of its rect whose own bounds meet the
// silhouette (the walk project_ray_fwd_kernel counted).
template <class Key>
__global__ void bin_ray_tiles_kernel(BinRayArgs a, Key* keys) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.n) return;
    const int g = int(a.order[i]);
    const int4 r = a.tile_rects[g];
    if (r.x >= r.z || r.y >= r.w) return;
    const float4 b = a.bounds[g];
    SilhouetteBounds<float> bounds;
    bounds.kind = Silhouette::bounded;  // an unbounded one is stored as infinite bounds
    bounds.x0 = b.x;
    bounds.x1 = b.y;
    bounds.y0 = b.z;
    bounds.y1 = b.w;
    std::uint32_t pos = a.offsets[i];
    for_each_ray_tile(bounds, TileRect{r.x, r.y, r.z, r.w}, reinterpret_cast<const float*>(a.tile_bounds),
                      a.tiles_x, [&](int tile) {
                          keys[pos] = Key(tile);
                          a.isect_gids[pos] = std::uint32_t(g);
                          ++pos;
                      });
}

// One thread per sorted pair: marks where each tile's run starts and ends.
template <class Key>
__global__ void tile_ranges_kernel(TileRangeArgs a, const Key* keys) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= a.pairs) return;
    const Key tile = keys[i];
    if (i == 0 || keys[i - 1] != tile) a.tile_ranges[tile].x = std::uint32_t(i);
    if (i + 1 == a.pairs || keys[i + 1] != tile) a.tile_ranges[tile].y = std::uint32_t(i + 1);
}

__global__ void alpha_from_transmittance_kernel(const float* final_T, float* alpha, std::size_t pixels) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < pixels) alpha[i] = 1.f - final_T[i];
}

}  // namespace

void launch_alpha_from_transmittance(const float* final_T, float* alpha, std::size_t pixels,
                                     cudaStream_t stream) {
    if (pixels == 0) return;
    alpha_from_transmittance_kernel<<<blocks_for(pixels), kBlock1d, 0, stream>>>(final_T, alpha, pixels);
    RADIANT_CUDA_CHECK_LAUNCH("alpha_from_transmittance_kernel");
}

void launch_iota(std::uint32_t* out, int n, cudaStream_t stream) {
    if (n == 0) return;
    iota_kernel<<<blocks_for(std::size_t(n)), kBlock1d, 0, stream>>>(out, n);
    RADIANT_CUDA_CHECK_LAUNCH("iota_kernel");
}

void launch_gather_counts(const GatherCountsArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    gather_counts_kernel<<<blocks_for(std::size_t(a.n)), kBlock1d, 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("gather_counts_kernel");
}

// launch(keys) with the tile keys as the 2- or 4-byte ids they hold (stages.hpp: short_tile_keys).
template <class Void, class Launch>
void with_tile_keys(bool short_keys, Void* keys, Launch launch) {
    using Short = std::conditional_t<std::is_const_v<Void>, const std::uint16_t, std::uint16_t>;
    using Long = std::conditional_t<std::is_const_v<Void>, const std::uint32_t, std::uint32_t>;
    if (short_keys)
        launch(static_cast<Short*>(keys));
    else
        launch(static_cast<Long*>(keys));
}

void launch_bin_tiles(const BinArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    with_tile_keys(a.short_keys, a.isect_keys, [&](auto* keys) {
        bin_tiles_kernel<<<blocks_for(std::size_t(a.n)), kBlock1d, 0, stream>>>(a, keys);
    });
    RADIANT_CUDA_CHECK_LAUNCH("bin_tiles_kernel");
}

void launch_bin_ray_tiles(const BinRayArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    with_tile_keys(a.short_keys, a.isect_keys, [&](auto* keys) {
        bin_ray_tiles_kernel<<<blocks_for(std::size_t(a.n)), kBlock1d, 0, stream>>>(a, keys);
    });
    RADIANT_CUDA_CHECK_LAUNCH("bin_ray_tiles_kernel");
}

void launch_tile_ranges(const TileRangeArgs& a, cudaStream_t stream) {
    if (a.pairs == 0) return;
    with_tile_keys(a.short_keys, a.sorted_keys, [&](auto* keys) {
        tile_ranges_kernel<<<blocks_for(a.pairs), kBlock1d, 0, stream>>>(a, keys);
    });
    RADIANT_CUDA_CHECK_LAUNCH("tile_ranges_kernel");
}

}  // namespace radiant::cuda
