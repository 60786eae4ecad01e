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
constexpr int kShBatch = 8;  // SH elements a thread loads before it updates them

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
        // Adam on the Gaussian's own 11 entries: every moment loaded first (one round trip to memory, not
        // eleven: a store between two loads keeps the compiler from hoisting the second).
        float m_mean[3], v_mean[3], m_scale[3], v_scale[3], m_quat[4], v_quat[4];
        RADIANT_UNROLL
        for (int c = 0; c < 3; ++c) {
            m_mean[c] = a.m.means[3 * g + c];
            v_mean[c] = a.v.means[3 * g + c];
            m_scale[c] = a.m.log_scales[3 * g + c];
            v_scale[c] = a.v.log_scales[3 * g + c];
        }
        RADIANT_UNROLL
        for (int c = 0; c < 4; ++c) {
            m_quat[c] = a.m.quats[4 * g + c];
            v_quat[c] = a.v.quats[4 * g + c];
        }
        float m_opacity = a.m.opacity_logits[g], v_opacity = a.v.opacity_logits[g];
        float mean[3] = {p.mean[0], p.mean[1], p.mean[2]};
        float log_scale[3] = {p.log_scale[0], p.log_scale[1], p.log_scale[2]};
        float quat[4] = {p.quat.x, p.quat.y, p.quat.z, p.quat.w};
        const float v_quat_grad[4] = {r.v_quat.x, r.v_quat.y, r.v_quat.z, r.v_quat.w};
        float opacity_logit = p.opacity_logit;
        RADIANT_UNROLL
        for (int c = 0; c < 3; ++c) {
            count(adam_update(mean[c], r.v_mean[c], m_mean[c], v_mean[c], a.means));
            count(adam_update(log_scale[c], r.v_log_scale[c], m_scale[c], v_scale[c], a.log_scales));
        }
        RADIANT_UNROLL
        for (int c = 0; c < 4; ++c)
            count(adam_update(quat[c], v_quat_grad[c], m_quat[c], v_quat[c], a.quats));
        count(adam_update(opacity_logit, r.v_opacity_logit, m_opacity, v_opacity, a.opacity_logits));
        RADIANT_UNROLL
        for (int c = 0; c < 3; ++c) {
            a.params.means[3 * g + c] = mean[c];
            a.m.means[3 * g + c] = m_mean[c];
            a.v.means[3 * g + c] = v_mean[c];
            a.params.log_scales[3 * g + c] = log_scale[c];
            a.m.log_scales[3 * g + c] = m_scale[c];
            a.v.log_scales[3 * g + c] = v_scale[c];
        }
        RADIANT_UNROLL
        for (int c = 0; c < 4; ++c) {
            a.m.quats[4 * g + c] = m_quat[c];
            a.v.quats[4 * g + c] = v_quat[c];
        }
        reinterpret_cast<float4*>(a.params.quats)[g] = unit_quat(float4{quat[0], quat[1], quat[2], quat[3]});
        a.params.opacity_logits[g] = opacity_logit;
        a.m.opacity_logits[g] = m_opacity;
        a.v.opacity_logits[g] = v_opacity;
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
    // kBatch elements a thread at a time, all loaded before any is updated: at this kernel's occupancy (its
    // registers and shared memory allow ~12 warps a SM) one element's three loads in flight per thread are
    // far from what keeps the memory system busy, and the stores between them stop the compiler from
    // hoisting the next loads (the arrays may alias as far as it knows).
    for (int e0 = int(threadIdx.x); e0 < elements; e0 += kThreads * kShBatch) {
        float value[kShBatch], m[kShBatch], v[kShBatch];
        RADIANT_UNROLL
        for (int u = 0; u < kShBatch; ++u) {
            const int e = e0 + u * kThreads;
            if (e >= elements) break;
            const std::size_t i = base + std::size_t(e);
            value[u] = a.params.sh[i];
            m[u] = a.m.sh[i];
            v[u] = a.v.sh[i];
        }
        RADIANT_UNROLL
        for (int u = 0; u < kShBatch; ++u) {
            const int e = e0 + u * kThreads;
            if (e >= elements) break;
            const int row = e / k3, j = e - row * k3;
            AdamElementConfig c = a.sh;
            if (j >= 3) c.lr = a.sh_rest_lr;
            count(adam_update(value[u], v_sh_rows[row * kShStride + j], m[u], v[u], c));
            const std::size_t i = base + std::size_t(e);
            a.params.sh[i] = value[u];
            a.m.sh[i] = m[u];
            a.v.sh[i] = v[u];
        }
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
