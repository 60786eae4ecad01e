// Per-image appearance on the GPU (issue 22): the core/appearance.hpp maths over a render's pixels.
#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"

namespace radiant::cuda {
namespace {

constexpr int kTile = 16;  // pixels a block side
constexpr int kThreads = kTile * kTile;

__global__ void appearance_forward_kernel(AppearanceArgs a) {
    const int x = int(blockIdx.x) * kTile + int(threadIdx.x) % kTile;
    const int y = int(blockIdx.y) * kTile + int(threadIdx.x) / kTile;
    if (x >= a.width || y >= a.height) return;
    const std::size_t p = 3 * (std::size_t(y) * std::size_t(a.width) + std::size_t(x));
    appearance_apply(a.model, a.params, x, y, a.width, a.height, a.render + p, a.shown + p);
}

// Exposure: every pixel touches the same 12 values; each block sums its pixels' share (warp shuffles,
// then shared memory) and adds it once.
__global__ void exposure_backward_kernel(AppearanceArgs a) {
    __shared__ float partial[kThreads / 32][kAffineParams];
    const int x = int(blockIdx.x) * kTile + int(threadIdx.x) % kTile;
    const int y = int(blockIdx.y) * kTile + int(threadIdx.x) / kTile;
    float g[kAffineParams] = {};
    if (x < a.width && y < a.height) {
        const std::size_t p = 3 * (std::size_t(y) * std::size_t(a.width) + std::size_t(x));
        appearance_vjp(a.model, a.params, x, y, a.width, a.height, a.render + p, a.v_shown + p,
                       a.v_render + p, [&](int j, float v) { g[j] += v; });
    }
    const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
    RADIANT_UNROLL
    for (int j = 0; j < kAffineParams; ++j) {
        float s = g[j];
        for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
        if (lane == 0) partial[warp][j] = s;
    }
    __syncthreads();
    if (threadIdx.x < kAffineParams) {
        float s = 0.f;
        for (int w = 0; w < kThreads / 32; ++w) s += partial[w][threadIdx.x];
        atomicAdd(&a.grad[threadIdx.x], s);
    }
}

// The bilateral grid: a pixel adds to its cell's 8 corners × 12 values. When a block's 16 × 16 pixels lie
// within one cell column and row (images of at least 16·15 px a side), its corners are among 3 × 3 × all
// z: summed in shared memory first, then added to the grid once each.
constexpr int kWindow = 3;
constexpr int kWindowValues = kWindow * kWindow * kGridZ * kAffineParams;

template <bool kShared>
__global__ void bilateral_backward_kernel(AppearanceArgs a) {
    __shared__ float window[kShared ? kWindowValues : 1];
    const int x = int(blockIdx.x) * kTile + int(threadIdx.x) % kTile;
    const int y = int(blockIdx.y) * kTile + int(threadIdx.x) / kTile;
    // The lower corner column and row of the block's first pixel (pixel rows and columns map monotonically).
    float probe[3] = {0.f, 0.f, 0.f};
    const GridPoint<float> first =
        grid_point(int(blockIdx.x) * kTile, int(blockIdx.y) * kTile, a.width, a.height, probe);
    if (kShared) {
        for (int i = int(threadIdx.x); i < kWindowValues; i += kThreads) window[i] = 0.f;
        __syncthreads();
    }
    if (x < a.width && y < a.height) {
        const std::size_t p = 3 * (std::size_t(y) * std::size_t(a.width) + std::size_t(x));
        appearance_vjp(a.model, a.params, x, y, a.width, a.height, a.render + p, a.v_shown + p,
                       a.v_render + p, [&](int j, float v) {
                           if (!kShared) {
                               atomicAdd(&a.grad[j], v);
                               return;
                           }
                           const int cell = j / kAffineParams, k = j % kAffineParams;
                           const int cx = cell % kGridX - first.x0, cy = cell / kGridX % kGridY - first.y0;
                           const int cz = cell / (kGridX * kGridY);
                           atomicAdd(&window[((cz * kWindow + cy) * kWindow + cx) * kAffineParams + k], v);
                       });
    }
    if (kShared) {
        __syncthreads();
        for (int i = int(threadIdx.x); i < kWindowValues; i += kThreads) {
            const float v = window[i];
            if (v == 0.f) continue;
            const int k = i % kAffineParams, c = i / kAffineParams;
            const int cx = c % kWindow + first.x0, cy = c / kWindow % kWindow + first.y0,
                      cz = c / (kWindow * kWindow);
            if (cx < kGridX && cy < kGridY) atomicAdd(&a.grad[grid_corner_offset(cx, cy, cz) + k], v);
        }
    }
}

__global__ void appearance_reg_kernel(AppearanceUpdateArgs a, int count) {
    __shared__ float partial[kThreads / 32];
    const int j = int(blockIdx.x) * kThreads + int(threadIdx.x);
    float value = 0.f;
    if (j < count) {
        float g = 0.f;
        value = appearance_reg_element(a.model, static_cast<const float*>(a.params), j, a.reg, g);
        a.grad[j] += g;
    }
    for (int off = 16; off > 0; off >>= 1) value += __shfl_down_sync(0xffffffffu, value, off);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = value;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.f;
        for (int w = 0; w < kThreads / 32; ++w) s += partial[w];
        atomicAdd(&a.sums[kSumAppearance], double(s));
    }
}

__global__ void appearance_adam_kernel(AppearanceUpdateArgs a, int count) {
    const int j = int(blockIdx.x) * kThreads + int(threadIdx.x);
    if (j >= count) return;
    const int flags = adam_update(a.params[j], a.grad[j], a.m[j], a.v[j], a.adam);
    if (flags & kAdamBadGrad) atomicAdd(&a.bad[0], 1u);
    if (flags & kAdamRejected) atomicAdd(&a.bad[1], 1u);
}

dim3 pixel_grid(const AppearanceArgs& a) {
    return dim3(unsigned((a.width + kTile - 1) / kTile), unsigned((a.height + kTile - 1) / kTile));
}

}  // namespace

void launch_appearance_forward(const AppearanceArgs& a, cudaStream_t stream) {
    if (a.width <= 0 || a.height <= 0) return;
    appearance_forward_kernel<<<pixel_grid(a), kThreads, 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("appearance_forward_kernel");
}

void launch_appearance_backward(const AppearanceArgs& a, cudaStream_t stream) {
    if (a.width <= 0 || a.height <= 0) return;
    if (a.model == AppearanceModel::exposure) {
        exposure_backward_kernel<<<pixel_grid(a), kThreads, 0, stream>>>(a);
    } else if (a.width >= kTile * (kGridX - 1) && a.height >= kTile * (kGridY - 1)) {
        bilateral_backward_kernel<true><<<pixel_grid(a), kThreads, 0, stream>>>(a);
    } else {
        bilateral_backward_kernel<false><<<pixel_grid(a), kThreads, 0, stream>>>(a);
    }
    RADIANT_CUDA_CHECK_LAUNCH("appearance_backward_kernel");
}

void launch_appearance_update(const AppearanceUpdateArgs& a, cudaStream_t stream) {
    const int count = appearance_params(a.model);
    if (count == 0) return;
    const unsigned blocks = unsigned((count + kThreads - 1) / kThreads);
    appearance_reg_kernel<<<blocks, kThreads, 0, stream>>>(a, count);
    RADIANT_CUDA_CHECK_LAUNCH("appearance_reg_kernel");
    appearance_adam_kernel<<<blocks, kThreads, 0, stream>>>(a, count);
    RADIANT_CUDA_CHECK_LAUNCH("appearance_adam_kernel");
}

}  // namespace radiant::cuda
