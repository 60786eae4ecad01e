#include "radiant/core/reduce_resolution.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"

namespace radiant::cuda {
namespace {

// One thread per pixel of the reduced image: core's block means (and block masks), as the CPU backend.
__global__ void reduce_image_kernel(ReduceImageArgs a) {
    const int w = reduced_size(a.width, a.factor), h = reduced_size(a.height, a.factor);
    const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= w * h) return;
    const int x = i % w, y = i / w;
    for (int c = 0; c < 3; ++c) a.out_rgb[3 * i + c] = block_mean(a.rgb, a.width, 3, x, y, a.factor, c);
    if (!a.mask) return;
    const std::uint8_t m = block_mask(a.mask, a.width, x, y, a.factor);
    a.out_mask[i] = m;
    if (a.valid && m == kMaskValid) atomicAdd(a.valid, 1u);
}

}  // namespace

void launch_reduce_image(const ReduceImageArgs& a, cudaStream_t stream) {
    const int pixels = reduced_size(a.width, a.factor) * reduced_size(a.height, a.factor);
    if (pixels == 0) return;
    reduce_image_kernel<<<unsigned((pixels + 255) / 256), 256, 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("reduce_image_kernel");
}

}  // namespace radiant::cuda
