#include "radiant/core/ray_project.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"

namespace radiant::cuda {
namespace {

// One thread per Gaussian: writes its (tile, depth) keys at its prefix-sum offset, tiles in row order, so
// equal keys keep Gaussian order through the stable radix sort (as the CPU reference's sort by (key, gid)).
__global__ void bin_tiles_kernel(BinArgs a) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= a.n) return;
    const int4 r = a.tile_rects[g];
    if (r.x >= r.z || r.y >= r.w) return;  // (x0, y0, x1, y1)
    Footprint<float> f{};
    f.mean2d = {a.means2d[g].x, a.means2d[g].y};
    const float4 co = a.conic_opacity[g];
    f.conic = {co.x, co.y, co.z};
    f.extent_sq = a.extent_sq[g];
    f.rect = {r.x, r.y, r.z, r.w};
    // depth > near_plane > 0: the float's bits order like its value
    const std::uint64_t depth_bits = __float_as_uint(a.depths[g]);
    std::uint32_t pos = a.offsets[g];
    for_each_touched_tile(f, a.tile_size, a.tiles_x, a.width, a.height, [&](int tile) {
        a.isect_keys[pos] = (std::uint64_t(tile) << 32) | depth_bits;
        a.isect_gids[pos] = std::uint32_t(g);
        ++pos;
    });
}

// The `ray` model's binning, as bin_tiles_kernel: the tiles of its rect whose own bounds meet the
// silhouette (the walk project_ray_fwd_kernel counted).
__global__ void bin_ray_tiles_kernel(BinRayArgs a) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= a.n) return;
    const int4 r = a.tile_rects[g];
    if (r.x >= r.z || r.y >= r.w) return;
    const float4 b = a.bounds[g];
    SilhouetteBounds<float> bounds;
    bounds.kind = Silhouette::bounded;  // an unbounded one is stored as infinite bounds
    bounds.x0 = b.x;
    bounds.x1 = b.y;
    bounds.y0 = b.z;
    bounds.y1 = b.w;
    const std::uint64_t depth_bits = __float_as_uint(a.depths[g]);
    std::uint32_t pos = a.offsets[g];
    for_each_ray_tile(bounds, TileRect{r.x, r.y, r.z, r.w}, reinterpret_cast<const float*>(a.tile_bounds),
                      a.tiles_x, [&](int tile) {
                          a.isect_keys[pos] = (std::uint64_t(tile) << 32) | depth_bits;
                          a.isect_gids[pos] = std::uint32_t(g);
                          ++pos;
                      });
}

// One thread per sorted pair: marks where each tile's run starts and ends.
__global__ void tile_ranges_kernel(TileRangeArgs a) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= a.pairs) return;
    const std::uint32_t tile = std::uint32_t(a.sorted_keys[i] >> 32);
    if (i == 0 || std::uint32_t(a.sorted_keys[i - 1] >> 32) != tile) a.tile_ranges[tile].x = std::uint32_t(i);
    if (i + 1 == a.pairs || std::uint32_t(a.sorted_keys[i + 1] >> 32) != tile)
        a.tile_ranges[tile].y = std::uint32_t(i + 1);
}

}  // namespace

void launch_bin_tiles(const BinArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    bin_tiles_kernel<<<blocks_for(std::size_t(a.n)), kBlock1d, 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("bin_tiles_kernel");
}

void launch_bin_ray_tiles(const BinRayArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    bin_ray_tiles_kernel<<<blocks_for(std::size_t(a.n)), kBlock1d, 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("bin_ray_tiles_kernel");
}

void launch_tile_ranges(const TileRangeArgs& a, cudaStream_t stream) {
    if (a.pairs == 0) return;
    tile_ranges_kernel<<<blocks_for(a.pairs), kBlock1d, 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("tile_ranges_kernel");
}

}  // namespace radiant::cuda
