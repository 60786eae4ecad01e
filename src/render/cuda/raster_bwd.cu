#include "radiant/render/cuda/cuda_check.hpp"
#include "raster_models.cuh"

namespace radiant::cuda {
namespace {

constexpr unsigned kFullMask = 0xffffffffu;

__device__ float clip(float v, float limit) {
    return limit > 0.f ? fminf(fmaxf(v, -limit), limit) : v;
}

__device__ Vec3<float> pixel_grad(const RasterBwdArgs& a, std::size_t pix) {
    return {clip(a.v_rgb[3 * pix], a.loss_grad_clip), clip(a.v_rgb[3 * pix + 1], a.loss_grad_clip),
            clip(a.v_rgb[3 * pix + 2], a.loss_grad_clip)};
}

// Sums the N values of every lane over the warp and leaves the totals scattered: afterwards v[0] of lane l
// holds the total of value index scatter_index<N>(l) (≥ N on lanes that hold none), the same on l and l ^ 1.
// Each step halves the values a lane keeps: it sends the half its partner keeps and adds the half it
// receives, so N = 9 takes 5 + 3 + 2 + 1 + 1 = 12 shuffles instead of 9 × 5 = 45 for a full sum of each,
// and the totals leave in one atomic instruction of several lanes instead of N from one lane.
template <int N, int kOffset = 16>
__device__ __forceinline__ void warp_reduce_scatter(float* v, int lane) {
    if constexpr (kOffset >= 2) {
        constexpr int kHalf = (N + 1) / 2;
        const bool upper = (lane & kOffset) != 0;
#pragma unroll
        for (int i = 0; i < kHalf; ++i) {
            const float lo = v[i], hi = i + kHalf < N ? v[i + kHalf] : 0.f;
            v[i] = (upper ? hi : lo) + __shfl_xor_sync(kFullMask, upper ? lo : hi, kOffset);
        }
        warp_reduce_scatter<kHalf, kOffset / 2>(v, lane);
    } else {
        static_assert(N == 1, "warp_reduce_scatter: at most 16 values");
        v[0] += __shfl_xor_sync(kFullMask, v[0], 1);
    }
}

// The value index whose total warp_reduce_scatter<N> leaves in lane `lane`: the halves it kept at each step.
template <int N, int kOffset = 16>
__device__ __forceinline__ int scatter_index(int lane, int index = 0) {
    if constexpr (kOffset >= 2) {
        constexpr int kHalf = (N + 1) / 2;
        return scatter_index<kHalf, kOffset / 2>(lane, (lane & kOffset) != 0 ? index + kHalf : index);
    } else {
        return index;
    }
}

// Replay mode. One block per tile; each thread takes kRows pixels of a column of it (rows ty, ty + H/kRows,
// …), so each list entry is fetched from shared memory, and its gradient reduced over the warp, once for
// kRows pixels: the kernel is issue-bound (bench/RESULTS.md), and the warp reduction is most of its
// instructions. The tile's list is walked back to front from the furthest last hit of any of its pixels, in
// shared-memory batches; at each entry (uniform across the block) each pixel that composited it adds its
// gradient (the model's kGrads floats) to its thread's sum, the warp sums those with shuffles (scattered
// over its lanes) and one lane per value adds the total to the Gaussian: each lane's value, and so where it
// adds it, is the same at every entry, found once. T before each hit is recovered as T_after / (1 − α), as
// the CPU reference.
// The batch holds one Gaussian per thread of this block, kTile² / kRows (as the forward's).
template <class Model, int kTile, int kRows>
__global__ void __launch_bounds__(kTile* kTile / kRows) raster_bwd_replay_kernel(RasterBwdArgs a) {
    __shared__ typename Model::template Batch<kTile * kTile / kRows> s;
    __shared__ int s_max_last;
    const RasterFwdArgs& f = a.fwd;
    constexpr int block = kTile * kTile / kRows, kStride = kTile / kRows;  // threads, and rows between pixels
    const int tile = blockIdx.y * f.tiles_x + blockIdx.x;
    const int tid = threadIdx.y * kTile + threadIdx.x;
    const uint2 range = f.tile_ranges[tile];
    const int x = blockIdx.x * kTile + threadIdx.x;
    typename Model::Pixel px[kRows];
    int my_last[kRows];
    float trans[kRows];
    Vec3<float> v_c[kRows], behind[kRows];
    int furthest = int(range.x);
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        const int y = blockIdx.y * kTile + threadIdx.y + r * kStride;
        const bool inside = x < f.width && y < f.height;
        const std::size_t pix = inside ? std::size_t(y) * std::size_t(f.width) + std::size_t(x) : 0;
        px[r] = {};
        const bool has_ray = inside && Model::pixel(f, x, y, pix, px[r]);
        // A pixel without a ray composited nothing: its last_isect is the range start.
        my_last[r] = has_ray ? f.last_isect[pix] : int(range.x);
        trans[r] = inside ? f.final_T[pix] : 1.f;
        v_c[r] = inside ? pixel_grad(a, pix) : Vec3<float>{};
        behind[r] = {f.background.x, f.background.y, f.background.z};
        furthest = max(furthest, my_last[r]);
    }
    if (tid == 0) s_max_last = int(range.x);
    __syncthreads();
    atomicMax(&s_max_last, furthest);
    __syncthreads();
    const int end = s_max_last;
    const int lane = tid & 31;
    const int my_value = scatter_index<Model::kGrads>(lane);
    const bool adds_total = (lane & 1) == 0 && my_value < Model::kGrads;
    const GradSlot my_slot = adds_total ? Model::slot(a, my_value) : GradSlot{};
    for (int batch_end = end; batch_end > int(range.x); batch_end -= block) {
        const int batch_start = max(int(range.x), batch_end - block);
        const int idx = batch_start + tid;
        if (idx < batch_end) s.load(tid, std::uint32_t(idx), f);
        __syncthreads();
        for (int i = batch_end - 1; i >= batch_start; --i) {
            const int j = i - batch_start;
            float v[Model::kGrads] = {};
            bool hit = false;
            if (i < furthest) {
                const typename Model::Splat sp = s.get(j);
#pragma unroll
                for (int r = 0; r < kRows; ++r) {
                    if (i >= my_last[r]) continue;
                    float alpha;
                    typename Model::Hit h;
                    if (!Model::alpha(sp, px[r], f.alpha_cutoff, alpha, h)) continue;
                    hit = true;
                    trans[r] = trans[r] / (1.f - alpha);
                    if constexpr (kRows == 1) {  // v = w, not 0 + w: equal sums, fewer instructions
                        Model::hit_grad(sp, s.colour_of(j), px[r], h, alpha, trans[r], v_c[r], behind[r], v);
                    } else {
                        float w[Model::kGrads];
                        Model::hit_grad(sp, s.colour_of(j), px[r], h, alpha, trans[r], v_c[r], behind[r], w);
#pragma unroll
                        for (int k = 0; k < Model::kGrads; ++k) v[k] += w[k];
                    }
                }
            }
            const unsigned hits = __ballot_sync(kFullMask, hit);
            if (!hits) continue;
            if (__popc(hits) <= a.direct_lanes) {  // few lanes: their atomics cost less than the reduction
                if (hit) Model::add(a, s.gid[j], v);
                continue;
            }
            warp_reduce_scatter<Model::kGrads>(v, lane);
            if (adds_total) my_slot.add(s.gid[j], v[0]);
        }
        __syncthreads();
    }
}

// Trace mode: each pixel walks its own stored hits back to front; lists differ per pixel, so every hit adds
// its gradient with atomics directly.
template <class Model>
__global__ void raster_bwd_trace_kernel(RasterBwdArgs a) {
    const RasterFwdArgs& f = a.fwd;
    const int x = blockIdx.x * f.tile_size + threadIdx.x, y = blockIdx.y * f.tile_size + threadIdx.y;
    if (x >= f.width || y >= f.height) return;
    const std::size_t pix = std::size_t(y) * std::size_t(f.width) + std::size_t(x);
    typename Model::Pixel px{};
    if (!Model::pixel(f, x, y, pix, px)) return;
    const Vec3<float> v_c = pixel_grad(a, pix);
    Vec3<float> behind{f.background.x, f.background.y, f.background.z};
    for (int k = f.n_hits[pix] - 1; k >= 0; --k) {
        const std::size_t slot = pix * std::size_t(f.trace_stride) + std::size_t(k);
        const std::uint32_t g = std::uint32_t(f.hit_gids[slot]);
        const typename Model::Splat sp = Model::fetch(f, g);
        float alpha;
        typename Model::Hit h;
        Model::alpha(sp, px, f.alpha_cutoff, alpha, h);  // the model's hit state; α is the stored one
        float v[Model::kGrads] = {};
        Model::hit_grad(sp, colour_of(f, g), px, h, f.hit_alphas[slot], f.hit_T[slot], v_c, behind, v);
        Model::add(a, g, v);
    }
}

// Pixels per thread of the replay backward: the most (fewest fetches and reductions per pixel) that keeps
// whole warps and still gives the GPU a full wave of threads (2048 per SM). A small image has few tiles:
// 4 rows a thread left bonsai's 799×532 views (1,700 tiles) two fifths of the threads the SMs hold, and
// its backward about 40 % slower than one pixel a thread (bench/RESULTS.md).
int replay_rows(int tiles, int tile_size, int sm_count) {
    for (int rows : {4, 2}) {
        const int threads = tile_size * tile_size / rows;
        if (threads % 32 == 0 && std::int64_t(tiles) * threads >= std::int64_t(sm_count) * 2048) return rows;
    }
    return 1;
}

template <class Model>
void launch(const RasterBwdArgs& a, cudaStream_t stream) {
    const RasterFwdArgs& f = a.fwd;
    const dim3 grid(unsigned(f.tiles_x), unsigned(f.tiles_y)),
        block(unsigned(f.tile_size), unsigned(f.tile_size));
    if (f.trace_stride > 0) {
        raster_bwd_trace_kernel<Model><<<grid, block, 0, stream>>>(a);
        RADIANT_CUDA_CHECK_LAUNCH("raster_bwd_trace_kernel");
    } else {
        int rows =
            a.replay_rows > 0 ? a.replay_rows : replay_rows(f.tiles_x * f.tiles_y, f.tile_size, a.sm_count);
        if (f.tile_size * f.tile_size / rows < 32) rows = 2;  // whole warps: 8×8 tiles take at most 2
        const dim3 threads(unsigned(f.tile_size), unsigned(f.tile_size / rows));
        if (f.tile_size == 8) {
            if (rows == 2)
                raster_bwd_replay_kernel<Model, 8, 2><<<grid, threads, 0, stream>>>(a);
            else
                raster_bwd_replay_kernel<Model, 8, 1><<<grid, threads, 0, stream>>>(a);
        } else if (rows == 4) {
            raster_bwd_replay_kernel<Model, 16, 4><<<grid, threads, 0, stream>>>(a);
        } else if (rows == 2) {
            raster_bwd_replay_kernel<Model, 16, 2><<<grid, threads, 0, stream>>>(a);
        } else {
            raster_bwd_replay_kernel<Model, 16, 1><<<grid, threads, 0, stream>>>(a);
        }
        RADIANT_CUDA_CHECK_LAUNCH("raster_bwd_replay_kernel");
    }
}

}  // namespace

void launch_raster_bwd(const RasterBwdArgs& a, cudaStream_t stream) {
    const RasterFwdArgs& f = a.fwd;
    if (f.width == 0 || f.height == 0) return;
    RADIANT_CHECK(f.tile_size == 8 || f.tile_size == 16, "CUDA raster backward: tile_size must be 8 or 16");
    if (f.shading == Shading::ray)
        launch<RayModel>(a, stream);
    else
        launch<EwaModel>(a, stream);
}

}  // namespace radiant::cuda
