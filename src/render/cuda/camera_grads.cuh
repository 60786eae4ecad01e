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

}  // namespace radiant::cuda
