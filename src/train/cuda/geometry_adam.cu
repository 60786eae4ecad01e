#include "gaussian_updates.cuh"
#include "radiant/render/cuda/cuda_check.hpp"
#include "radiant/render/cuda/gaussian_access.cuh"
#include "stages.hpp"
#include "unit_quat.cuh"

namespace radiant::cuda {
namespace {

constexpr int kThreads = 128;
// A thread's SH gradient row in shared memory: an odd stride puts the rows' same entries in different banks.
constexpr int kShStride = 3 * kMaxShCoeffs + 1;
constexpr unsigned kAllLanes = 0xffffffffu;

struct SceneArrays {
    const float *means, *log_scales, *quats, *opacity_logits, *sh;
    int sh_coeffs;
};

template <bool kCamera>
__global__ void __launch_bounds__(kThreads) geometry_adam_kernel(GeometryAdamArgs a) {
    __shared__ float v_sh_rows[kThreads * kShStride];
    const int g = int(blockIdx.x) * kThreads + int(threadIdx.x);
    const int k3 = 3 * a.sh_coeffs;
    unsigned bad[3] = {0, 0, 0};
    const auto count = [&](int flags) {
        bad[0] += (flags & kAdamBadGrad) != 0;
        bad[1] += (flags & kAdamRejected) != 0;
        bad[2] += (flags & kAdamBadParam) != 0;
    };
    float v_sh[3 * kMaxShCoeffs];
    RADIANT_UNROLL
    for (int i = 0; i < 3 * kMaxShCoeffs; ++i) v_sh[i] = 0.f;
    CameraGrads<float> cam{};
    float opacity = 0.f, scale_sum = 0.f;
    bool visible = false;
    if (g < a.n) {
        const SceneArrays scene{a.params.means,          a.params.log_scales, a.params.quats,
                                a.params.opacity_logits, a.params.sh,         a.sh_coeffs};
        float sh[3 * kMaxShCoeffs];
        const GaussianParams<float> p = load_gaussian(scene, g, sh);
        GaussianGrads<float> r{};
        const int radius = a.fp.radii[g];
        if (radius > 0) {
            float norm = 0.f;
            r = ewa_gaussian_bwd(a.fp, p, g, v_sh, kCamera ? &cam : nullptr, norm);
            visible = true;
            if (a.accumulate_stats) accumulate_visible_stats(a.stats, std::size_t(g), norm, radius);
        }
        if (a.regularise)
            add_mcmc_regulariser_grads(p.opacity_logit, p.log_scale, r.v_opacity_logit, r.v_log_scale,
                                       a.opacity_reg, a.scale_reg, float(a.n), opacity, scale_sum);
        // Adam on the Gaussian's own entries; returns the new value for the caller to store.
        const auto adam = [&](float value, float grad, float* m, float* v, int i,
                              const AdamElementConfig& c) {
            float mi = m[i], vi = v[i];
            count(adam_update(value, grad, mi, vi, c));
            m[i] = mi;
            v[i] = vi;
            return value;
        };
        for (int c = 0; c < 3; ++c) {
            a.params.means[3 * g + c] =
                adam(p.mean[c], r.v_mean[c], a.m.means, a.v.means, 3 * g + c, a.means);
            a.params.log_scales[3 * g + c] = adam(p.log_scale[c], r.v_log_scale[c], a.m.log_scales,
                                                  a.v.log_scales, 3 * g + c, a.log_scales);
        }
        float4 q;
        q.x = adam(p.quat.x, r.v_quat.x, a.m.quats, a.v.quats, 4 * g, a.quats);
        q.y = adam(p.quat.y, r.v_quat.y, a.m.quats, a.v.quats, 4 * g + 1, a.quats);
        q.z = adam(p.quat.z, r.v_quat.z, a.m.quats, a.v.quats, 4 * g + 2, a.quats);
        q.w = adam(p.quat.w, r.v_quat.w, a.m.quats, a.v.quats, 4 * g + 3, a.quats);
        reinterpret_cast<float4*>(a.params.quats)[g] = unit_quat(q);
        a.params.opacity_logits[g] = adam(p.opacity_logit, r.v_opacity_logit, a.m.opacity_logits,
                                          a.v.opacity_logits, g, a.opacity_logits);
    }

    // The block's SH: its threads' gradient rows through shared memory, then updated element by element in
    // memory order (an element is DC when it is among the first 3 of its Gaussian's row, as launch_adam).
    RADIANT_UNROLL
    for (int i = 0; i < 3 * kMaxShCoeffs; ++i)
        if (i < k3) v_sh_rows[int(threadIdx.x) * kShStride + i] = v_sh[i];
    __syncthreads();
    const int g0 = int(blockIdx.x) * kThreads;
    const int elements = min(kThreads, a.n - g0) * k3;
    const std::size_t base = std::size_t(g0) * std::size_t(k3);
    for (int e = int(threadIdx.x); e < elements; e += kThreads) {
        const int row = e / k3, j = e - row * k3;
        AdamElementConfig c = a.sh;
        if (j >= 3) c.lr = a.sh_rest_lr;
        const std::size_t i = base + std::size_t(e);
        float value = a.params.sh[i], m = a.m.sh[i], v = a.v.sh[i];
        count(adam_update(value, v_sh_rows[row * kShStride + j], m, v, c));
        a.params.sh[i] = value;
        a.m.sh[i] = m;
        a.v.sh[i] = v;
    }

    const int lane = int(threadIdx.x) & 31;
    if (a.accumulate_stats) {
        const unsigned warp = __popc(__ballot_sync(kAllLanes, visible));
        if (lane == 0 && warp) atomicAdd(&a.sums[kSumVisible], double(warp));
    }
    if (a.regularise) {
        opacity = warp_sum(opacity);
        scale_sum = warp_sum(scale_sum);
        if (lane == 0) {
            atomicAdd(&a.sums[kSumOpacity], double(opacity));
            atomicAdd(&a.sums[kSumScale], double(scale_sum));
        }
    }
    if constexpr (kCamera) add_camera_grads(cam, a.camera_grads);
    for (int k = 0; k < 3; ++k)
        if (bad[k]) atomicAdd(&a.bad[k], bad[k]);
}

}  // namespace

void launch_geometry_adam(const GeometryAdamArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    const unsigned blocks = unsigned((a.n + kThreads - 1) / kThreads);
    if (a.camera_grads)
        geometry_adam_kernel<true><<<blocks, kThreads, 0, stream>>>(a);
    else
        geometry_adam_kernel<false><<<blocks, kThreads, 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("geometry_adam_kernel");
}

}  // namespace radiant::cuda
