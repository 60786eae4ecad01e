// Fused L1 + SSIM loss and its gradient on the GPU: the CPU reference's separable formulation
// (train/loss.cpp) as four passes over element planes, one thread per pixel channel. Masked pixels read the
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

__device__ __forceinline__ float target_value(const std::uint8_t* t, std::size_t e) {
    return float(t[e]) * (1.f / 255.f);
}

// Whether element e (pixel e / 3) counts.
__device__ __forceinline__ bool counts(const std::uint8_t* mask, std::size_t e) {
    return !mask || mask[e / 3] == kMaskValid;
}

// The render's value where the pixel counts, the target's where it does not.
__device__ __forceinline__ float render_value(const PhotometricArgs& a, std::size_t e) {
    return counts(a.mask, e) ? a.render[e] : target_value(a.target, e);
}

// Blur of the five planes at `base` along one axis (step: 3 for x, 3·W for y), zero padding; pos/size is
// the element's coordinate on that axis.
__device__ __forceinline__ void blur_planes(const float* base, std::size_t plane, std::size_t e, int pos,
                                            int size, std::ptrdiff_t step, float (&acc)[kPlanes]) {
    RADIANT_UNROLL
    for (int p = 0; p < kPlanes; ++p) acc[p] = 0.f;
    for (int k = -kRadius; k <= kRadius; ++k) {
        const int q = pos + k;
        if (q < 0 || q >= size) continue;
        const std::size_t j = std::size_t(std::ptrdiff_t(e) + step * k);
        const float w = c_window[k + kRadius];
        RADIANT_UNROLL
        for (int p = 0; p < kPlanes; ++p) acc[p] += w * base[std::size_t(p) * plane + j];
    }
}

// Pass 1: horizontal blur of x, y, x², y², xy.
__global__ void stats_h_kernel(PhotometricArgs a, Shape sh) {
    const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= sh.n) return;
    const int x = int((e / 3) % std::size_t(sh.width));
    float acc[kPlanes] = {};
    for (int k = -kRadius; k <= kRadius; ++k) {
        const int xx = x + k;
        if (xx < 0 || xx >= sh.width) continue;
        const std::size_t j = std::size_t(std::ptrdiff_t(e) + 3 * k);
        const float w = c_window[k + kRadius], r = render_value(a, j), t = target_value(a.target, j);
        acc[0] += w * r;
        acc[1] += w * t;
        acc[2] += w * r * r;
        acc[3] += w * t * t;
        acc[4] += w * r * t;
    }
    RADIANT_UNROLL
    for (int p = 0; p < kPlanes; ++p) a.planes[std::size_t(p) * sh.n + e] = acc[p];
}

// Pass 2: vertical blur → μ, σ², σxy → SSIM; L1 and squared-error sums; with a gradient, the five maps
// whose blurs give ∂SSIM/∂x (scaled by −λ / n), written to the second half of the planes.
__global__ void ssim_map_kernel(PhotometricArgs a, Shape sh, bool with_ssim) {
    const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    float v[3] = {0.f, 0.f, 0.f};
    if (e < sh.n && counts(a.mask, e)) {
        const float d = a.render[e] - target_value(a.target, e);
        v[0] = fabsf(d);
        v[1] = d * d;
        if (with_ssim) {
            const int y = int(e / (3 * std::size_t(sh.width)));
            float m[kPlanes];
            blur_planes(a.planes, sh.n, e, y, sh.height, std::ptrdiff_t(3) * sh.width, m);
            const float mx = m[0], my = m[1];
            const float vx = m[2] - mx * mx, vy = m[3] - my * my, cxy = m[4] - mx * my;
            const float a1 = 2.f * mx * my + kC1, a2 = 2.f * cxy + kC2;
            const float b1 = mx * mx + my * my + kC1, b2 = vx + vy + kC2;
            const float s = a1 * a2 / (b1 * b2);
            v[2] = s;
            if (a.v_render) {
                const float scale = -a.lambda / float(a.counted);
                const float d_mu = scale * (2.f * my * a2 / (b1 * b2) - s * 2.f * mx / b1);
                const float d_var = scale * (-s / b2);
                const float d_cov = scale * (2.f * a1 / (b1 * b2));
                float* q = a.planes + kPlanes * sh.n;
                q[e] = d_mu;
                q[sh.n + e] = d_var;
                q[2 * sh.n + e] = d_var * mx;
                q[3 * sh.n + e] = d_cov;
                q[4 * sh.n + e] = d_cov * my;
            }
        }
    } else if (e < sh.n && a.v_render && with_ssim) {
        // Not counted: no term in the SSIM mean, so nothing to spread to the window's pixels.
        float* q = a.planes + kPlanes * sh.n;
        RADIANT_UNROLL
        for (int p = 0; p < kPlanes; ++p) q[std::size_t(p) * sh.n + e] = 0.f;
    }
    const int slots[3] = {kSumAbs, kSumSq, kSumSsim};
    block_add<3>(v, a.sums, slots);
}

// Pass 3: horizontal blur of the five gradient maps (second half → first half of the planes).
__global__ void grad_h_kernel(PhotometricArgs a, Shape sh) {
    const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= sh.n) return;
    const int x = int((e / 3) % std::size_t(sh.width));
    float acc[kPlanes];
    blur_planes(a.planes + kPlanes * sh.n, sh.n, e, x, sh.width, 3, acc);
    RADIANT_UNROLL
    for (int p = 0; p < kPlanes; ++p) a.planes[std::size_t(p) * sh.n + e] = acc[p];
}

// Pass 4: vertical blur and the gradient: the L1 term plus
// G⊛dμ + 2x·G⊛dvar − 2·G⊛(dvar·μx) + y·G⊛dcov − G⊛(dcov·μy) (the window is its own adjoint).
__global__ void grad_v_kernel(PhotometricArgs a, Shape sh, bool with_ssim) {
    const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= sh.n) return;
    if (!counts(a.mask, e)) {
        a.v_render[e] = 0.f;
        return;
    }
    const float r = a.render[e], t = target_value(a.target, e), d = r - t;
    float g = (1.f - a.lambda) * (d > 0.f ? 1.f : (d < 0.f ? -1.f : 0.f)) / float(a.counted);
    if (with_ssim) {
        const int y = int(e / (3 * std::size_t(sh.width)));
        float acc[kPlanes];
        blur_planes(a.planes, sh.n, e, y, sh.height, std::ptrdiff_t(3) * sh.width, acc);
        g += acc[0] + 2.f * r * acc[1] - 2.f * acc[2] + t * acc[3] - acc[4];
    }
    a.v_render[e] = g;
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
    const bool with_ssim = a.lambda > 0.f || !a.v_render;  // metrics always want SSIM
    const unsigned blocks = unsigned((sh.n + kBlock - 1) / kBlock);
    if (with_ssim) {
        stats_h_kernel<<<blocks, kBlock, 0, stream>>>(a, sh);
        RADIANT_CUDA_CHECK_LAUNCH("stats_h_kernel");
    }
    ssim_map_kernel<<<blocks, kBlock, 0, stream>>>(a, sh, with_ssim);
    RADIANT_CUDA_CHECK_LAUNCH("ssim_map_kernel");
    if (!a.v_render) return;
    if (with_ssim) {
        grad_h_kernel<<<blocks, kBlock, 0, stream>>>(a, sh);
        RADIANT_CUDA_CHECK_LAUNCH("grad_h_kernel");
    }
    grad_v_kernel<<<blocks, kBlock, 0, stream>>>(a, sh, with_ssim);
    RADIANT_CUDA_CHECK_LAUNCH("grad_v_kernel");
}

}  // namespace radiant::cuda
