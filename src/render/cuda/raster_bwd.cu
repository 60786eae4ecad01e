#include "radiant/core/composite.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#include "splat_batch.cuh"

namespace radiant::cuda {
namespace {

constexpr int kMaxBlock = 256;
constexpr unsigned kFullMask = 0xffffffffu;

__device__ float clip(float v, float limit) {
    return limit > 0.f ? fminf(fmaxf(v, -limit), limit) : v;
}

struct HitGrad {
    float v[9];  // mean2d x y, conic a b c, colour r g b, opacity
};

// ∂L/∂(one hit's inputs), back to front: ∂C/∂c = T α, ∂C/∂α = T (c − D) (DESIGN.md §2), then α → footprint.
__device__ void hit_grad(const Vec2<float>& centre, float2 mean, float4 co, float3 colour, float alpha,
                         float t_before, const Vec3<float>& v_c, Vec3<float>& behind, HitGrad& out) {
    const Vec3<float> c{colour.x, colour.y, colour.z};
    const float w = t_before * alpha;
    out.v[5] = w * v_c.x;
    out.v[6] = w * v_c.y;
    out.v[7] = w * v_c.z;
    const float v_alpha = t_before * dot(c - behind, v_c);
    Sym2<float> v_conic{};
    Vec2<float> v_mean{};
    float v_opacity = 0.f;
    splat_alpha_vjp(Sym2<float>{co.x, co.y, co.z}, centre - Vec2<float>{mean.x, mean.y}, co.w, v_alpha,
                    v_conic, v_mean, v_opacity);
    out.v[0] = v_mean.x;
    out.v[1] = v_mean.y;
    out.v[2] = v_conic.a;
    out.v[3] = v_conic.b;
    out.v[4] = v_conic.c;
    out.v[8] = v_opacity;
    behind = alpha * c + (1.f - alpha) * behind;
}

__device__ void add_to_gaussian(const RasterBwdArgs& a, std::uint32_t g, const HitGrad& h) {
    atomicAdd(&a.v_means2d[g].x, h.v[0]);
    atomicAdd(&a.v_means2d[g].y, h.v[1]);
    atomicAdd(&a.v_conics[3 * g], h.v[2]);
    atomicAdd(&a.v_conics[3 * g + 1], h.v[3]);
    atomicAdd(&a.v_conics[3 * g + 2], h.v[4]);
    atomicAdd(&a.v_colours[3 * g], h.v[5]);
    atomicAdd(&a.v_colours[3 * g + 1], h.v[6]);
    atomicAdd(&a.v_colours[3 * g + 2], h.v[7]);
    atomicAdd(&a.v_opacities[g], h.v[8]);
}

// Replay mode. One block per tile, one thread per pixel. The tile's list is walked back to front from the
// furthest last hit of any of its pixels, in shared-memory batches; at each list entry (uniform across the
// block) every pixel that composited it adds its gradient, the warp sums them with shuffles and one lane
// adds the sum to the Gaussian. T before each hit is recovered as T_after / (1 − α), as the CPU reference.
__global__ void __launch_bounds__(kMaxBlock) raster_bwd_replay_kernel(RasterBwdArgs a) {
    __shared__ SplatBatch<kMaxBlock> s;
    __shared__ int s_max_last;
    const RasterFwdArgs& f = a.fwd;
    const int tile = blockIdx.y * f.tiles_x + blockIdx.x;
    const int x = blockIdx.x * f.tile_size + threadIdx.x, y = blockIdx.y * f.tile_size + threadIdx.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, block = blockDim.x * blockDim.y;
    const bool inside = x < f.width && y < f.height;
    const uint2 range = f.tile_ranges[tile];
    const std::size_t pix = inside ? std::size_t(y) * std::size_t(f.width) + std::size_t(x) : 0;
    const Vec2<float> centre{float(x) + 0.5f, float(y) + 0.5f};
    const int my_last = inside ? f.last_isect[pix] : int(range.x);
    float trans = inside ? f.final_T[pix] : 1.f;
    const Vec3<float> v_c = inside ? Vec3<float>{clip(a.v_rgb[3 * pix], a.loss_grad_clip),
                                                 clip(a.v_rgb[3 * pix + 1], a.loss_grad_clip),
                                                 clip(a.v_rgb[3 * pix + 2], a.loss_grad_clip)}
                                   : Vec3<float>{};
    Vec3<float> behind{f.background.x, f.background.y, f.background.z};
    if (tid == 0) s_max_last = int(range.x);
    __syncthreads();
    atomicMax(&s_max_last, my_last);
    __syncthreads();
    const int end = s_max_last;
    const int lane = tid & 31;
    for (int batch_end = end; batch_end > int(range.x); batch_end -= block) {
        const int batch_start = max(int(range.x), batch_end - block);
        const int idx = batch_start + tid;
        if (idx < batch_end) s.load(tid, std::uint32_t(idx), f);
        __syncthreads();
        for (int i = batch_end - 1; i >= batch_start; --i) {
            const int j = i - batch_start;
            HitGrad h{};
            bool hit = false;
            if (i < my_last) {
                const float4 co = s.conic_opacity[j];
                float alpha;
                hit =
                    splat_alpha(Sym2<float>{co.x, co.y, co.z}, centre - Vec2<float>{s.mean[j].x, s.mean[j].y},
                                co.w, s.extent[j], f.alpha_cutoff, alpha);
                if (hit) {
                    trans = trans / (1.f - alpha);
                    hit_grad(centre, s.mean[j], co, s.colour[j], alpha, trans, v_c, behind, h);
                }
            }
            if (!__any_sync(kFullMask, hit)) continue;
            for (int k = 0; k < 9; ++k)
                for (int off = 16; off > 0; off >>= 1) h.v[k] += __shfl_down_sync(kFullMask, h.v[k], off);
            if (lane == 0) add_to_gaussian(a, s.gid[j], h);
        }
        __syncthreads();
    }
}

// Trace mode: each pixel walks its own stored hits back to front; lists differ per pixel, so every hit adds
// its gradient with atomics directly.
__global__ void raster_bwd_trace_kernel(RasterBwdArgs a) {
    const RasterFwdArgs& f = a.fwd;
    const int x = blockIdx.x * f.tile_size + threadIdx.x, y = blockIdx.y * f.tile_size + threadIdx.y;
    if (x >= f.width || y >= f.height) return;
    const std::size_t pix = std::size_t(y) * std::size_t(f.width) + std::size_t(x);
    const Vec2<float> centre{float(x) + 0.5f, float(y) + 0.5f};
    const Vec3<float> v_c{clip(a.v_rgb[3 * pix], a.loss_grad_clip),
                          clip(a.v_rgb[3 * pix + 1], a.loss_grad_clip),
                          clip(a.v_rgb[3 * pix + 2], a.loss_grad_clip)};
    Vec3<float> behind{f.background.x, f.background.y, f.background.z};
    for (int k = f.n_hits[pix] - 1; k >= 0; --k) {
        const std::size_t slot = pix * std::size_t(f.trace_stride) + std::size_t(k);
        const std::uint32_t g = std::uint32_t(f.hit_gids[slot]);
        HitGrad h{};
        hit_grad(centre, f.means2d[g], f.conic_opacity[g],
                 make_float3(f.colours[3 * g], f.colours[3 * g + 1], f.colours[3 * g + 2]),
                 f.hit_alphas[slot], f.hit_T[slot], v_c, behind, h);
        add_to_gaussian(a, g, h);
    }
}

}  // namespace

void launch_raster_bwd(const RasterBwdArgs& a, cudaStream_t stream) {
    const RasterFwdArgs& f = a.fwd;
    if (f.width == 0 || f.height == 0) return;
    RADIANT_CHECK(f.tile_size * f.tile_size <= kMaxBlock && (f.tile_size * f.tile_size) % 32 == 0,
                  "CUDA raster backward: tile_size must be 8 or 16");
    const dim3 grid(unsigned(f.tiles_x), unsigned(f.tiles_y)),
        block(unsigned(f.tile_size), unsigned(f.tile_size));
    if (f.trace_stride > 0) {
        raster_bwd_trace_kernel<<<grid, block, 0, stream>>>(a);
        RADIANT_CUDA_CHECK_LAUNCH("raster_bwd_trace_kernel");
    } else {
        raster_bwd_replay_kernel<<<grid, block, 0, stream>>>(a);
        RADIANT_CUDA_CHECK_LAUNCH("raster_bwd_replay_kernel");
    }
}

}  // namespace radiant::cuda
