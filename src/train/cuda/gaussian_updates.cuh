#pragma once
// Per-Gaussian pieces of a training step's statistics and regularisers (densify_kernels.cu): the warp sum
// they reduce with, the MCMC regularisers' gradient, the visible Gaussians' densification statistics.
#include <cuda_runtime.h>

#include "radiant/core/scene.hpp"
#include "stages.hpp"

namespace radiant::cuda {

__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// The MCMC regularisers λo·mean(opacity) and λs·mean(scale) over the scene's n Gaussians: this one's share of
// their gradient, added into its opacity-logit and log-scale gradients. `opacity` and `scale_sum` get its
// opacity and the sum of its scales (the loss's terms).
template <class Scales, class ScaleGrads>
__device__ __forceinline__ void add_mcmc_regulariser_grads(float opacity_logit, const Scales& log_scale,
                                                           float& v_opacity_logit, ScaleGrads& v_log_scale,
                                                           float opacity_reg, float scale_reg, float n,
                                                           float& opacity, float& scale_sum) {
    opacity = sigmoid(opacity_logit);
    v_opacity_logit += opacity_reg / n * opacity * (1.f - opacity);
    for (int c = 0; c < 3; ++c) {
        const float sc = expf(log_scale[c]);
        v_log_scale[c] += scale_reg / (3.f * n) * sc;
        scale_sum += sc;
    }
}

// Densification statistics of Gaussian i, visible (radius > 0) in this step's view.
__device__ __forceinline__ void accumulate_visible_stats(const DensifyStatsView& st, std::size_t i,
                                                         float norm, int radius) {
    st.grad_accum[i] += norm;
    st.denom[i] += 1;
    st.max_radii[i] = fmaxf(st.max_radii[i], float(radius));
}

}  // namespace radiant::cuda
