#include "camera_grads.cuh"
#include "radiant/core/densify_rules.hpp"
#include "radiant/core/ray_project.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"

namespace radiant::cuda {
namespace {

// One thread per Gaussian: the shared core chain from the raster's per-Gaussian hit sums (RayHitSums) to
// every parameter, and the densification statistic (the gradient of moving the camera-frame mean across
// the image, in `ewa`'s units). Overwrites the Gaussian's gradient entries (zeros when it was culled).
template <bool kShSources>
__device__ __forceinline__ void gaussian_bwd(const ProjectRayBwdArgs& a, int g, CameraGrads<float>* cam) {
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
    if (a.radii[g] > 0) {
        float sh[3 * kMaxShCoeffs];
        const GaussianParams<float> p = load_gaussian(a, g, sh);
        const RayHitSums<float> sums = load_ray_hit_sums(a.v_ray + kRayHitSumsSize * std::size_t(g));
        Vec3<float> v_mean_cam;
        r = project_ray_gaussian_vjp(p, a.ps, sums, v_sh, v_mean_cam, cam, &source);
        const float4 m = a.mean_opacity[g];
        norm = mean2d_grad_norm(
            ray_mean2d_grad(Vec3<float>{m.x, m.y, m.z}, v_mean_cam, a.ps.cam.fx, a.ps.cam.fy), a.ps.cam.width,
            a.ps.cam.height);
    }
    store_gaussian_grads<kShSources>(a, g, r, v_sh, source, norm);
}

// The camera pose gradient is summed only in the kCamera instances (pose refinement).
template <bool kCamera, bool kShSources>
__global__ void project_ray_bwd_kernel(ProjectRayBwdArgs a) {
    each_gaussian_bwd<kCamera>(a,
                               [&](int g, CameraGrads<float>* cam) { gaussian_bwd<kShSources>(a, g, cam); });
}

}  // namespace

void launch_project_ray_bwd(const ProjectRayBwdArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    const unsigned blocks = blocks_for(std::size_t(a.n));
    with_bwd_switches(a.camera_grads != nullptr, a.g_sh_sources != nullptr, [&](auto camera, auto sources) {
        project_ray_bwd_kernel<decltype(camera)::value, decltype(sources)::value>
            <<<blocks, kBlock1d, 0, stream>>>(a);
    });
    RADIANT_CUDA_CHECK_LAUNCH("project_ray_bwd_kernel");
}

}  // namespace radiant::cuda
