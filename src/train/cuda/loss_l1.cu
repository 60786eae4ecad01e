#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"

namespace radiant::cuda {
namespace {

constexpr int kBlock = 256;

// One thread per pixel channel: the L1 gradient, and the block's |difference| sum added once to the total.
__global__ void loss_l1_kernel(LossL1Args a) {
    __shared__ float s_sum[kBlock / 32];
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    float d = 0.f;
    if (i < a.n) {
        d = a.render[i] - a.target[i];
        a.v_render[i] = (d > 0.f ? 1.f : (d < 0.f ? -1.f : 0.f)) / float(a.n);
    }
    float s = fabsf(d);
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    if ((threadIdx.x & 31) == 0) s_sum[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.f;
        for (int w = 0; w < kBlock / 32; ++w) t += s_sum[w];
        atomicAdd(a.loss_sum, double(t));
    }
}

}  // namespace

void launch_loss_l1(const LossL1Args& a, cudaStream_t stream) {
    if (a.n == 0) return;
    loss_l1_kernel<<<unsigned((a.n + kBlock - 1) / kBlock), kBlock, 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("loss_l1_kernel");
}

}  // namespace radiant::cuda
