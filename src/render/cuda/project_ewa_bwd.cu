#include "camera_grads.cuh"
#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"

namespace radiant::cuda {
namespace {

// One thread per Gaussian: the shared core VJP from the footprint gradients to every parameter. Overwrites
// the Gaussian's gradient entries (zeros when it was culled) and its 2D-gradient norm (densification).
template <bool kShSources>
__device__ __forceinline__ void gaussian_bwd(const ProjectBwdArgs& a, int g, CameraGrads<float>* cam) {
    // The SH gradient is built in a register array (constant indices after unrolling) and written once.
    // With kShSources (a.g_sh_sources set) only the SH gradient's sources are written: no v_sh array.
    float v_sh_rows[kShSources ? 1 : 3 * kMaxShCoeffs];
    float* const v_sh = kShSources ? nullptr : v_sh_rows;
    if constexpr (!kShSources) {
#pragma unroll
        for (int i = 0; i < 3 * kMaxShCoeffs; ++i) v_sh[i] = 0.f;
    }
    GaussianGrads<float> r{};
    ShGradSource<float> source{};
    float norm = 0.f;
    if (a.fp.radii[g] > 0) {
        float sh[3 * kMaxShCoeffs];
        const GaussianParams<float> p = load_gaussian(a, g, sh);
        r = ewa_gaussian_bwd(a.fp, p, g, v_sh, cam, norm, &source);
    }
    store_gaussian_grads<kShSources>(a, g, r, v_sh, source, norm);
}

// The camera pose gradient is summed only in the kCamera instances (pose refinement). Two blocks a
// multiprocessor (128 registers; unbounded it took 140, one block of 8 warps: too few loads in flight for a
// kernel that streams the parameters).
template <bool kCamera, bool kShSources>
__global__ void __launch_bounds__(kBlock1d, 2) project_ewa_bwd_kernel(ProjectBwdArgs a) {
    each_gaussian_bwd<kCamera>(a,
                               [&](int g, CameraGrads<float>* cam) { gaussian_bwd<kShSources>(a, g, cam); });
}

}  // namespace

void launch_project_ewa_bwd(const ProjectBwdArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    const unsigned blocks = blocks_for(std::size_t(a.n));
    with_bwd_switches(a.camera_grads != nullptr, a.g_sh_sources != nullptr, [&](auto camera, auto sources) {
        project_ewa_bwd_kernel<decltype(camera)::value, decltype(sources)::value>
            <<<blocks, kBlock1d, 0, stream>>>(a);
    });
    RADIANT_CUDA_CHECK_LAUNCH("project_ewa_bwd_kernel");
}

}  // namespace radiant::cuda
