#pragma once
// A quaternion back to unit length after its Adam update (the identity when it has no length to keep),
// shared by the Adam step and the fused geometry-Adam step so that both leave the same bits.
#include <cuda_runtime.h>

namespace radiant::cuda {

__device__ __forceinline__ float4 unit_quat(float4 v) {
    const float len = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w);
    if (len > 0.f && isfinite(len)) return make_float4(v.x / len, v.y / len, v.z / len, v.w / len);
    return make_float4(1.f, 0.f, 0.f, 0.f);
}

}  // namespace radiant::cuda
