#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"

namespace radiant::cuda {
namespace {

// One thread per Gaussian: the shared core VJP from the footprint gradients to every parameter. Overwrites
// the Gaussian's gradient entries (zeros when it was culled) and its 2D-gradient norm (densification).
__global__ void project_ewa_bwd_kernel(ProjectBwdArgs a) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= a.n) return;
    const int k3 = 3 * a.sh_coeffs;
    // The SH gradient is built in a register array (constant indices after unrolling) and written once.
    float v_sh[3 * kMaxShCoeffs];
#pragma unroll
    for (int i = 0; i < 3 * kMaxShCoeffs; ++i) v_sh[i] = 0.f;
    float sh[3 * kMaxShCoeffs];
    load_sh(a.sh + std::size_t(g) * std::size_t(k3), k3, sh);
    Vec3<float> v_mean{}, v_log_scale{};
    Vec4<float> v_quat{};
    float v_logit = 0.f, norm = 0.f;
    if (a.radii[g] > 0) {
        GaussianParams<float> p;
        p.mean = {a.means[3 * g], a.means[3 * g + 1], a.means[3 * g + 2]};
        p.log_scale = {a.log_scales[3 * g], a.log_scales[3 * g + 1], a.log_scales[3 * g + 2]};
        p.quat = {a.quats[4 * g], a.quats[4 * g + 1], a.quats[4 * g + 2], a.quats[4 * g + 3]};
        p.opacity_logit = a.opacity_logits[g];
        p.sh = sh;
        Footprint<float> f{};
        const float4 co = a.conic_opacity[g];
        f.conic = {co.x, co.y, co.z};
        f.opacity = co.w;
        FootprintGrads<float> v;
        v.v_mean2d = {a.v_means2d[g].x, a.v_means2d[g].y};
        v.v_conic = {a.v_conics[3 * g], a.v_conics[3 * g + 1], a.v_conics[3 * g + 2]};
        v.v_colour = {a.v_colours[3 * g], a.v_colours[3 * g + 1], a.v_colours[3 * g + 2]};
        v.v_opacity = a.v_opacities[g];
        const GaussianGrads<float> r = project_ewa_gaussian_vjp(p, a.ps, f, v, v_sh);
        v_mean = r.v_mean;
        v_log_scale = r.v_log_scale;
        v_quat = r.v_quat;
        v_logit = r.v_opacity_logit;
        const float hx = v.v_mean2d.x * 0.5f * float(a.ps.cam.width),
                    hy = v.v_mean2d.y * 0.5f * float(a.ps.cam.height);
        norm = sqrtf(hx * hx + hy * hy);
    }
    store_sh(v_sh, k3, a.g_sh + std::size_t(g) * std::size_t(k3));
    for (int c = 0; c < 3; ++c) {
        a.g_means[3 * g + c] = v_mean[c];
        a.g_log_scales[3 * g + c] = v_log_scale[c];
    }
    a.g_quats[4 * g] = v_quat.x;
    a.g_quats[4 * g + 1] = v_quat.y;
    a.g_quats[4 * g + 2] = v_quat.z;
    a.g_quats[4 * g + 3] = v_quat.w;
    a.g_opacity_logits[g] = v_logit;
    a.mean2d_grad_norms[g] = norm;
}

}  // namespace

void launch_project_ewa_bwd(const ProjectBwdArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    project_ewa_bwd_kernel<<<blocks_for(std::size_t(a.n)), kBlock1d, 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("project_ewa_bwd_kernel");
}

}  // namespace radiant::cuda
