#include "camera_grads.cuh"
#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"

namespace radiant::cuda {
namespace {

// One thread per Gaussian: the shared core VJP from the footprint gradients to every parameter. Overwrites
// the Gaussian's gradient entries (zeros when it was culled) and its 2D-gradient norm (densification).
__device__ __forceinline__ void gaussian_bwd(const ProjectBwdArgs& a, int g, CameraGrads<float>* cam) {
    // The SH gradient is built in a register array (constant indices after unrolling) and written once.
    float v_sh[3 * kMaxShCoeffs];
#pragma unroll
    for (int i = 0; i < 3 * kMaxShCoeffs; ++i) v_sh[i] = 0.f;
    GaussianGrads<float> r{};
    ShGradSource<float> source{};
    float norm = 0.f;
    if (a.fp.radii[g] > 0) {
        float sh[3 * kMaxShCoeffs];
        const GaussianParams<float> p = load_gaussian(a, g, sh);
        r = ewa_gaussian_bwd(a.fp, p, g, v_sh, cam, norm, &source);
    }
    store_gaussian_grads(a, g, r, v_sh, source, norm);
}

// The camera pose gradient is summed only in the <true> instance (pose refinement).
template <bool kCamera>
__global__ void project_ewa_bwd_kernel(ProjectBwdArgs a) {
    each_gaussian_bwd<kCamera>(a, [&](int g, CameraGrads<float>* cam) { gaussian_bwd(a, g, cam); });
}

}  // namespace

void launch_project_ewa_bwd(const ProjectBwdArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    if (a.camera_grads)
        project_ewa_bwd_kernel<true><<<blocks_for(std::size_t(a.n)), kBlock1d, 0, stream>>>(a);
    else
        project_ewa_bwd_kernel<false><<<blocks_for(std::size_t(a.n)), kBlock1d, 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("project_ewa_bwd_kernel");
}

}  // namespace radiant::cuda
