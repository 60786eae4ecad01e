#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"

namespace radiant::cuda {
namespace {

constexpr int kBlock = 256;

// Fused Adam: blockIdx.y picks the group, a grid-stride loop covers its elements; each element is the shared
// core update (core/adam_update.hpp), so the GPU and the CPU optimizer agree to float rounding.
__global__ void adam_kernel(AdamArgs a) {
    const AdamGroup& g = a.groups[blockIdx.y];
    unsigned bad_grads = 0, bad_params = 0;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < g.n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        AdamElementConfig c = g.config;
        if (g.sh_coeffs > 0 && (i / 3) % std::size_t(g.sh_coeffs) != 0) c.lr = g.rest_lr;
        const int flags = adam_update(g.params[i], g.grads[i], g.m[i], g.v[i], c);
        bad_grads += flags & 1;
        bad_params += (flags >> 1) & 1;
    }
    if (bad_grads) atomicAdd(&a.bad[0], bad_grads);
    if (bad_params) atomicAdd(&a.bad[1], bad_params);
}

__global__ void normalize_quats_kernel(float* q, std::size_t n) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = reinterpret_cast<float4*>(q)[i];
    const float len = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w);
    if (len > 0.f && isfinite(len))
        v = make_float4(v.x / len, v.y / len, v.z / len, v.w / len);
    else
        v = make_float4(1.f, 0.f, 0.f, 0.f);
    reinterpret_cast<float4*>(q)[i] = v;
}

}  // namespace

void launch_adam(const AdamArgs& a, cudaStream_t stream) {
    std::size_t most = 0;
    for (int i = 0; i < a.count; ++i) most = std::max(most, a.groups[i].n);
    if (most == 0) return;
    const unsigned blocks = unsigned(std::min<std::size_t>((most + kBlock - 1) / kBlock, 4096));
    adam_kernel<<<dim3(blocks, unsigned(a.count)), kBlock, 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("adam_kernel");
}

void launch_normalize_quats(float* quats, std::size_t n, cudaStream_t stream) {
    if (n == 0) return;
    normalize_quats_kernel<<<unsigned((n + kBlock - 1) / kBlock), kBlock, 0, stream>>>(quats, n);
    RADIANT_CUDA_CHECK_LAUNCH("normalize_quats_kernel");
}

}  // namespace radiant::cuda
