#pragma once
// The camera pose gradient summed over Gaussians: each warp adds its threads' shares (core/camera_grad.hpp),
// then one lane adds the warp's sum into the six accumulators. Every thread of the warp must call it.
#include "radiant/core/camera_grad.hpp"

namespace radiant::cuda {

__device__ inline void add_camera_grads(const CameraGrads<float>& c, double* out) {
    float v[6] = {c.v_rot.x, c.v_rot.y, c.v_rot.z, c.v_trans.x, c.v_trans.y, c.v_trans.z};
#pragma unroll
    for (int k = 0; k < 6; ++k)
        for (int offset = 16; offset > 0; offset >>= 1) v[k] += __shfl_down_sync(0xffffffffu, v[k], offset);
    if ((threadIdx.x & 31) == 0)
        for (int k = 0; k < 6; ++k)
            if (v[k] != 0.f) atomicAdd(out + k, double(v[k]));
}

// The projection backward's kernel body: thread g takes Gaussian g through bwd(g, cam). With kCamera, cam
// collects each one's share of the camera pose gradient and the warps sum them into a.camera_grads; without
// it, cam is null and the per-Gaussian code compiles as if it had no camera output.
template <bool kCamera, class Args, class Bwd>
__device__ __forceinline__ void each_gaussian_bwd(const Args& a, Bwd bwd) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if constexpr (kCamera) {
        CameraGrads<float> cam{};
        if (g < a.n) bwd(g, &cam);
        add_camera_grads(cam, a.camera_grads);  // the whole warp, past n too
    } else if (g < a.n) {
        bwd(g, nullptr);
    }
}

}  // namespace radiant::cuda
