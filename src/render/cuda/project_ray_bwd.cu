#include "radiant/core/densify_rules.hpp"
#include "radiant/core/ray_project.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"

namespace radiant::cuda {
namespace {

// One thread per Gaussian: the shared core chain from the raster's per-Gaussian hit sums (RayHitSums) to
// every parameter, and the densification statistic (the gradient of moving the camera-frame mean across
// the image, in `ewa`'s units). Overwrites the Gaussian's gradient entries (zeros when it was culled).
__global__ void project_ray_bwd_kernel(ProjectRayBwdArgs a) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= a.n) return;
    const int k3 = 3 * a.sh_coeffs;
    float v_sh[3 * kMaxShCoeffs];
#pragma unroll
    for (int i = 0; i < 3 * kMaxShCoeffs; ++i) v_sh[i] = 0.f;
    GaussianGrads<float> r{};
    float norm = 0.f;
    if (a.radii[g] > 0) {
        float sh[3 * kMaxShCoeffs];
        load_sh(a.sh + std::size_t(g) * std::size_t(k3), k3, sh);
        GaussianParams<float> p;
        p.mean = {a.means[3 * g], a.means[3 * g + 1], a.means[3 * g + 2]};
        p.log_scale = {a.log_scales[3 * g], a.log_scales[3 * g + 1], a.log_scales[3 * g + 2]};
        p.quat = {a.quats[4 * g], a.quats[4 * g + 1], a.quats[4 * g + 2], a.quats[4 * g + 3]};
        p.opacity_logit = a.opacity_logits[g];
        p.sh = sh;
        const float* v = a.v_ray + kRayHitSums * std::size_t(g);
        RayHitSums<float> sums;
        for (int i = 0; i < 3; ++i) {
            sums.v_ol[i] = v[i];
            for (int j = 0; j < 3; ++j) sums.v_dl_dir.m[i][j] = v[3 + 3 * i + j];
            sums.v_colour[i] = v[12 + i];
        }
        sums.v_opacity = v[15];
        Vec3<float> v_mean_cam;
        r = project_ray_gaussian_vjp(p, a.ps, sums, v_sh, v_mean_cam);
        const float4 m = a.mean_opacity[g];
        norm = mean2d_grad_norm(
            ray_mean2d_grad(Vec3<float>{m.x, m.y, m.z}, v_mean_cam, a.ps.cam.fx, a.ps.cam.fy), a.ps.cam.width,
            a.ps.cam.height);
    }
    store_sh(v_sh, k3, a.g_sh + std::size_t(g) * std::size_t(k3));
    for (int c = 0; c < 3; ++c) {
        a.g_means[3 * g + c] = r.v_mean[c];
        a.g_log_scales[3 * g + c] = r.v_log_scale[c];
    }
    a.g_quats[4 * g] = r.v_quat.x;
    a.g_quats[4 * g + 1] = r.v_quat.y;
    a.g_quats[4 * g + 2] = r.v_quat.z;
    a.g_quats[4 * g + 3] = r.v_quat.w;
    a.g_opacity_logits[g] = r.v_opacity_logit;
    a.mean2d_grad_norms[g] = norm;
}

}  // namespace

void launch_project_ray_bwd(const ProjectRayBwdArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    project_ray_bwd_kernel<<<blocks_for(std::size_t(a.n)), kBlock1d, 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("project_ray_bwd_kernel");
}

}  // namespace radiant::cuda
