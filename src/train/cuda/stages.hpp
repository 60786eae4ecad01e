#pragma once
// CUDA stages of the training layer: the fused L1 loss and the fused Adam update (layer-private).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "radiant/core/adam_update.hpp"

namespace radiant::cuda {

struct LossL1Args {
    std::size_t n = 0;  // H·W·3
    const float* render;
    const float* target;
    float* v_render;   // ∂L1/∂render = sign / n
    double* loss_sum;  // Σ |render − target|, accumulated (zeroed by the caller)
};
void launch_loss_l1(const LossL1Args& a, cudaStream_t stream);

// Five groups in one launch: means, log-scales, quaternions, opacity logits and SH, where DC and rest
// share the array (an element is DC when (i / 3) % sh_coeffs == 0) with their own learning rates.
struct AdamGroup {
    float* params;
    const float* grads;
    float* m;
    float* v;
    std::size_t n;
    AdamElementConfig config;  // lr is the group's; for SH, config is DC and rest_lr the others'
    float rest_lr;
    int sh_coeffs;  // > 0 only for the SH group
};
struct AdamArgs {
    AdamGroup groups[5];
    int count = 0;
    unsigned* bad;  // [2] non-finite gradients, rejected updates (accumulated)
};
void launch_adam(const AdamArgs& a, cudaStream_t stream);

// Quaternions back to unit length after the update.
void launch_normalize_quats(float* quats, std::size_t n, cudaStream_t stream);

}  // namespace radiant::cuda
