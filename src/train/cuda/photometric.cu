// Fused L1 + SSIM loss and its gradient on the GPU: the CPU reference's separable formulation
// (train/loss.cpp) on image tiles in shared memory, one thread per pixel. Masked pixels read the
// target in place of the render and contribute to no sum and no gradient, as in the reference.
#include <cmath>

#include "radiant/core/image.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"

namespace radiant::cuda {
namespace {

constexpr int kBlock = 256;
constexpr int kRadius = 5;  // 11×11 window
constexpr int kPlanes = 5;
constexpr float kC1 = 0.01f * 0.01f, kC2 = 0.03f * 0.03f;

__constant__ float c_window[2 * kRadius + 1];

struct Shape {
    int width, height;
    std::size_t n;  // width · height · 3
};

// Block-wide sum of up to four values, added once per block to sums[slot...].
template <int K>
__device__ void block_add(float (&v)[K], double* sums, const int (&slot)[K]) {
    __shared__ float s[K][kBlock / 32];
    RADIANT_UNROLL
    for (int k = 0; k < K; ++k)
        for (int off = 16; off > 0; off >>= 1) v[k] += __shfl_down_sync(0xffffffffu, v[k], off);
    if ((threadIdx.x & 31) == 0) {
        RADIANT_UNROLL
        for (int k = 0; k < K; ++k) s[k][threadIdx.x / 32] = v[k];
    }
    __syncthreads();
    if (threadIdx.x < K) {
        float t = 0.f;
        for (int w = 0; w < kBlock / 32; ++w) t += s[threadIdx.x][w];
        atomicAdd(&sums[slot[threadIdx.x]], double(t));
    }
}

// As the CPU's to_float: a rounded division, which the compiler cannot fuse into the caller's subtraction
// (a product by 1/255 became fma(−t, 1/255, r): 1 − 255·(1/255) was −6e-8 instead of 0, and the L1
// gradient took a sign where the reference has none).
__device__ __forceinline__ float target_value(const std::uint8_t* t, std::size_t e) {
    return __fdiv_rn(float(t[e]), 255.f);
}

// Whether element e (pixel e / 3) counts.
__device__ __forceinline__ bool counts(const std::uint8_t* mask, std::size_t e) {
    return !mask || mask[e / 3] == kMaskValid;
}

// The render's value where the pixel counts, the target's where it does not.
__device__ __forceinline__ float render_value(const PhotometricArgs& a, std::size_t e) {
    return counts(a.mask, e) ? a.render[e] : target_value(a.target, e);
}

// The SSIM passes work on 16×16 output tiles with the window's reach (5 px) around them in shared memory,
// one channel after another: the forward blurs x, y, x², y², xy and writes, per element, the three maps
// whose blurs give ∂SSIM/∂x; the backward blurs those and adds the L1 term. Two kernels and three planes of
// scratch instead of four passes over ten (bench/RESULTS.md: the loss at bonsai's size).
constexpr int kTile = 16;
constexpr int kSpan = kTile + 2 * kRadius;  // 26
static_assert(kTile * kTile == kBlock, "one thread per output pixel of the tile");

// Where this block's span (its 16×16 output tile with the window's reach around it) lies in the image:
// span element (row i, column j) is pixel (x + j, y + i).
struct TileOrigin {
    int x, y;
    __device__ TileOrigin() : x(int(blockIdx.x) * kTile - kRadius), y(int(blockIdx.y) * kTile - kRadius) {}
};

// Horizontal pass: K planes of the span [kSpan][kSpan] → [kSpan][kTile] (the tile's columns).
template <int K>
__device__ void blur_rows(const float (&in)[K][kSpan][kSpan], float (&out)[K][kSpan][kTile]) {
    for (int k = int(threadIdx.x); k < kSpan * kTile; k += kBlock) {
        const int i = k / kTile, j = k % kTile;
        float acc[K] = {};
        RADIANT_UNROLL
        for (int t = 0; t <= 2 * kRadius; ++t) {
            const float w = c_window[t];
            RADIANT_UNROLL
            for (int p = 0; p < K; ++p) acc[p] += w * in[p][i][j + t];
        }
        RADIANT_UNROLL
        for (int p = 0; p < K; ++p) out[p][i][j] = acc[p];
    }
}

// Vertical pass for this thread's output pixel (row ty, column tx of the tile).
template <int K>
__device__ void blur_column(const float (&in)[K][kSpan][kTile], int tx, int ty, float (&acc)[K]) {
    RADIANT_UNROLL
    for (int p = 0; p < K; ++p) acc[p] = 0.f;
    RADIANT_UNROLL
    for (int t = 0; t <= 2 * kRadius; ++t) {
        const float w = c_window[t];
        RADIANT_UNROLL
        for (int p = 0; p < K; ++p) acc[p] += w * in[p][ty + t][tx];
    }
}

// SSIM forward: the SSIM, L1 and squared-error sums over counted elements and, with a gradient, per element
// the maps (scaled by −λ / n) A = dμ − 2·dσ²·μx − dσxy·μy, B = dσ², C = dσxy, so that
// ∂/∂x = G⊛A + 2x·G⊛B + y·G⊛C (the window is its own adjoint). Uncounted elements get zero maps.
__global__ void __launch_bounds__(kBlock) ssim_forward_kernel(PhotometricArgs a, Shape sh) {
    __shared__ float s_h[kPlanes][kSpan][kTile];
    __shared__ float s_stats[kPlanes][kSpan][kSpan];
    const TileOrigin o;
    const int tx = int(threadIdx.x) % kTile, ty = int(threadIdx.x) / kTile;
    const int px = o.x + kRadius + tx, py = o.y + kRadius + ty;
    const bool inside = px < sh.width && py < sh.height;
    const std::size_t pix = inside ? std::size_t(py) * std::size_t(sh.width) + std::size_t(px) : 0;
    float v[3] = {0.f, 0.f, 0.f};
    const float scale = -a.lambda / float(a.counted);
    for (int c = 0; c < 3; ++c) {
        for (int k = int(threadIdx.x); k < kSpan * kSpan; k += kBlock) {
            const int i = k / kSpan, j = k % kSpan, x = o.x + j, y = o.y + i;
            float r = 0.f, t = 0.f;
            if (x >= 0 && y >= 0 && x < sh.width && y < sh.height) {
                const std::size_t e = (std::size_t(y) * std::size_t(sh.width) + std::size_t(x)) * 3 + c;
                t = target_value(a.target, e);
                r = render_value(a, e);
            }
            s_stats[0][i][j] = r;
            s_stats[1][i][j] = t;
            s_stats[2][i][j] = r * r;
            s_stats[3][i][j] = t * t;
            s_stats[4][i][j] = r * t;
        }
        __syncthreads();
        blur_rows<kPlanes>(s_stats, s_h);
        __syncthreads();
        float m[kPlanes];
        blur_column<kPlanes>(s_h, tx, ty, m);
        if (inside) {
            const std::size_t e = pix * 3 + c;
            float maps[3] = {0.f, 0.f, 0.f};
            if (counts(a.mask, e)) {
                const float d = a.render[e] - target_value(a.target, e);
                v[0] += fabsf(d);
                v[1] += d * d;
                const float mx = m[0], my = m[1];
                const float vx = m[2] - mx * mx, vy = m[3] - my * my, cxy = m[4] - mx * my;
                const float a1 = 2.f * mx * my + kC1, a2 = 2.f * cxy + kC2;
                const float b1 = mx * mx + my * my + kC1, b2 = vx + vy + kC2;
                const float s = a1 * a2 / (b1 * b2);
                v[2] += s;
                const float d_mu = scale * (2.f * my * a2 / (b1 * b2) - s * 2.f * mx / b1);
                const float d_var = scale * (-s / b2);
                const float d_cov = scale * (2.f * a1 / (b1 * b2));
                maps[0] = d_mu - 2.f * d_var * mx - d_cov * my;
                maps[1] = d_var;
                maps[2] = d_cov;
            }
            if (a.v_render) {
                RADIANT_UNROLL
                for (int p = 0; p < 3; ++p) a.planes[std::size_t(p) * sh.n + e] = maps[p];
            }
        }
        __syncthreads();  // the next channel overwrites the span
    }
    const int slots[3] = {kSumAbs, kSumSq, kSumSsim};
    block_add<3>(v, a.sums, slots);
}

// SSIM backward: blurs the three maps and adds the L1 term; uncounted elements get exactly zero.
__global__ void __launch_bounds__(kBlock) ssim_backward_kernel(PhotometricArgs a, Shape sh) {
    __shared__ float s_maps[3][kSpan][kSpan];
    __shared__ float s_h[3][kSpan][kTile];
    const TileOrigin o;
    const int tx = int(threadIdx.x) % kTile, ty = int(threadIdx.x) / kTile;
    const int px = o.x + kRadius + tx, py = o.y + kRadius + ty;
    const bool inside = px < sh.width && py < sh.height;
    const std::size_t pix = inside ? std::size_t(py) * std::size_t(sh.width) + std::size_t(px) : 0;
    for (int c = 0; c < 3; ++c) {
        for (int k = int(threadIdx.x); k < kSpan * kSpan; k += kBlock) {
            const int i = k / kSpan, j = k % kSpan, x = o.x + j, y = o.y + i;
            const bool in_image = x >= 0 && y >= 0 && x < sh.width && y < sh.height;
            const std::size_t e =
                in_image ? (std::size_t(y) * std::size_t(sh.width) + std::size_t(x)) * 3 + c : 0;
            RADIANT_UNROLL
            for (int p = 0; p < 3; ++p)
                s_maps[p][i][j] = in_image ? a.planes[std::size_t(p) * sh.n + e] : 0.f;
        }
        __syncthreads();
        blur_rows<3>(s_maps, s_h);
        __syncthreads();
        float g3[3];
        blur_column<3>(s_h, tx, ty, g3);
        if (inside) {
            const std::size_t e = pix * 3 + c;
            float g = 0.f;
            if (counts(a.mask, e)) {
                const float r = a.render[e], t = target_value(a.target, e), d = r - t;
                g = (1.f - a.lambda) * (d > 0.f ? 1.f : (d < 0.f ? -1.f : 0.f)) / float(a.counted) + g3[0] +
                    2.f * r * g3[1] + t * g3[2];
            }
            a.v_render[e] = g;
        }
        __syncthreads();
    }
}

// Without SSIM (λ = 0 with a gradient): the L1 and squared-error sums and the L1 gradient, per element.
__global__ void l1_kernel(PhotometricArgs a, Shape sh) {
    const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    float v[2] = {0.f, 0.f};
    if (e < sh.n) {
        float g = 0.f;
        if (counts(a.mask, e)) {
            const float d = a.render[e] - target_value(a.target, e);
            v[0] = fabsf(d);
            v[1] = d * d;
            g = (d > 0.f ? 1.f : (d < 0.f ? -1.f : 0.f)) / float(a.counted);
        }
        a.v_render[e] = g;
    }
    const int slots[2] = {kSumAbs, kSumSq};
    block_add<2>(v, a.sums, slots);
}

void upload_window() {
    // Written once per process; the window is a constant of the loss.
    static const bool done = [] {
        float w[2 * kRadius + 1];
        double sum = 0, g[2 * kRadius + 1];
        for (int i = 0; i <= 2 * kRadius; ++i) {
            const double d = i - kRadius;
            g[i] = std::exp(-d * d / (2 * 1.5 * 1.5));
            sum += g[i];
        }
        for (int i = 0; i <= 2 * kRadius; ++i) w[i] = float(g[i] / sum);
        RADIANT_CUDA_CHECK(cudaMemcpyToSymbol(c_window, w, sizeof(w)));
        return true;
    }();
    (void)done;
}

}  // namespace

void launch_photometric(const PhotometricArgs& a, cudaStream_t stream) {
    const Shape sh{a.width, a.height, std::size_t(a.width) * std::size_t(a.height) * 3};
    if (sh.n == 0) return;
    upload_window();
    if (a.v_render && a.lambda <= 0.f) {  // metrics always want SSIM; a λ = 0 gradient does not
        l1_kernel<<<unsigned((sh.n + kBlock - 1) / kBlock), kBlock, 0, stream>>>(a, sh);
        RADIANT_CUDA_CHECK_LAUNCH("l1_kernel");
        return;
    }
    const dim3 tiles(unsigned((a.width + kTile - 1) / kTile), unsigned((a.height + kTile - 1) / kTile));
    ssim_forward_kernel<<<tiles, kBlock, 0, stream>>>(a, sh);
    RADIANT_CUDA_CHECK_LAUNCH("ssim_forward_kernel");
    if (!a.v_render) return;
    ssim_backward_kernel<<<tiles, kBlock, 0, stream>>>(a, sh);
    RADIANT_CUDA_CHECK_LAUNCH("ssim_backward_kernel");
}

}  // namespace radiant::cuda
