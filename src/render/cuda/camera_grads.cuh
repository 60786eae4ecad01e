#pragma once
#include <type_traits>

#include "radiant/render/cuda/gaussian_access.cuh"

namespace radiant::cuda {

// A projection backward's two run-time switches (camera gradient wanted, SH gradient as sources) as the
// template arguments of its kernel: launch(std::bool_constant<camera>, std::bool_constant<sh_sources>).
template <class Launch>
void with_bwd_switches(bool camera, bool sh_sources, Launch launch) {
    const auto with_sources = [&](auto cam) {
        if (sh_sources)
            launch(cam, std::true_type{});
        else
            launch(cam, std::false_type{});
    };
    if (camera)
        with_sources(std::true_type{});
    else
        with_sources(std::false_type{});
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
