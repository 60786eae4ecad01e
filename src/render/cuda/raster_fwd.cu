#include "radiant/render/cuda/cuda_check.hpp"
#include "raster_models.cuh"

namespace radiant::cuda {
namespace {

// One block per tile (kTile × kTile pixels), one thread per pixel. The tile's sorted list is streamed through
// shared memory in batches of one Gaussian per thread; each pixel composites front to back with the per-hit
// rules of core/composite.hpp (α from the shading model) and records its trace. Reads the projection and the
// lists; writes rgb, final_T, n_hits, last_isect and (trace mode) the hits. A pixel without a ray (`ray`
// model, outside the lens model's valid region) is background. With kDepth, also the expected depth of the
// composited hits (core/composite.hpp's weights) and their median depth, as the CPU reference; kTrace is
// trace mode (a.trace_stride > 0), a template argument so that replay's hit path carries no test. The batch
// holds one Gaussian per thread of this tile size: sized for 16×16 tiles, an 8×8 tile's block took 11 KB of
// shared memory for 64 threads, which held an SM to 19 blocks, 59 % of its threads (bench/RESULTS.md).
template <class Model, int kTile, bool kDepth, bool kTrace>
__global__ void __launch_bounds__(kTile* kTile) raster_fwd_kernel(RasterFwdArgs a) {
    __shared__ typename Model::template Batch<kTile * kTile> s;
    const int tile = blockIdx.y * a.tiles_x + blockIdx.x;
    constexpr int block = kTile * kTile;
    const int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
    const int tid = threadIdx.y * kTile + threadIdx.x;
    const bool inside = x < a.width && y < a.height;
    const uint2 range = a.tile_ranges[tile];
    const std::size_t pix = inside ? std::size_t(y) * std::size_t(a.width) + std::size_t(x) : 0;
    typename Model::Pixel px{};
    const bool has_ray = inside && Model::pixel(a, x, y, pix, px);

    float trans = 1.f, depth = 0.f, median = 0.f;
    Vec3<float> c{};
    int hits = 0;
    std::int32_t last = std::int32_t(range.x);
    bool done = !has_ray;
    for (std::uint32_t batch = range.x; batch < range.y; batch += std::uint32_t(block)) {
        if (__syncthreads_count(done) == block) break;
        const std::uint32_t idx = batch + std::uint32_t(tid);
        if (idx < range.y) s.load(tid, idx, a);
        __syncthreads();
        const int count = min(block, int(range.y - batch));
        for (int j = 0; j < count && !done; ++j) {
            if (a.max_splat_steps > 0 && hits == a.max_splat_steps) {
                done = true;
                break;
            }
            const typename Model::Splat sp = s.get(j);
            float alpha;
            typename Model::Hit h;
            if (!Model::alpha(sp, px, a.alpha_cutoff, alpha, h)) continue;
            const float next = trans * (1.f - alpha);
            if (next < a.transmittance_threshold) {
                done = true;
                break;
            }
            if constexpr (kTrace) {
                const std::size_t slot = pix * std::size_t(a.trace_stride) + std::size_t(hits);
                a.hit_gids[slot] = std::int32_t(s.gid[j]);
                a.hit_alphas[slot] = alpha;
                a.hit_T[slot] = trans;
            }
            c += (alpha * trans) * s.colour_of(j);
            if constexpr (kDepth) {
                depth += alpha * trans * a.depths[s.gid[j]];
                if (is_median_hit(trans, next)) median = a.depths[s.gid[j]];
            }
            trans = next;
            ++hits;
            last = std::int32_t(batch) + j + 1;
        }
        __syncthreads();
    }
    if (!inside) return;
    a.rgb[3 * pix] = c.x + trans * a.background.x;
    a.rgb[3 * pix + 1] = c.y + trans * a.background.y;
    a.rgb[3 * pix + 2] = c.z + trans * a.background.z;
    a.final_T[pix] = trans;
    a.n_hits[pix] = hits;
    a.last_isect[pix] = last;
    if constexpr (kDepth) {
        a.depth[pix] = expected_depth(depth, trans);
        a.median_depth[pix] = median;
    }
}

template <class Model, int kTile, bool kDepth>
void launch(const RasterFwdArgs& a, cudaStream_t stream) {
    const dim3 grid(unsigned(a.tiles_x), unsigned(a.tiles_y)), block{unsigned(kTile), unsigned(kTile)};
    if (a.trace_stride > 0)
        raster_fwd_kernel<Model, kTile, kDepth, true><<<grid, block, 0, stream>>>(a);
    else
        raster_fwd_kernel<Model, kTile, kDepth, false><<<grid, block, 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("raster_fwd_kernel");
}

template <class Model, int kTile>
void launch(const RasterFwdArgs& a, cudaStream_t stream) {
    if (a.depth)
        launch<Model, kTile, true>(a, stream);
    else
        launch<Model, kTile, false>(a, stream);
}

template <class Model>
void launch(const RasterFwdArgs& a, cudaStream_t stream) {
    if (a.tile_size == 8)
        launch<Model, 8>(a, stream);
    else
        launch<Model, 16>(a, stream);
}

}  // namespace

void launch_raster_fwd(const RasterFwdArgs& a, cudaStream_t stream) {
    if (a.width == 0 || a.height == 0) return;
    RADIANT_CHECK(a.tile_size == 8 || a.tile_size == 16, "CUDA raster: tile_size must be 8 or 16");
    if (a.shading == Shading::ray)
        launch<RayModel>(a, stream);
    else
        launch<EwaModel>(a, stream);
}

}  // namespace radiant::cuda
