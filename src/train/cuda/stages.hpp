#pragma once
// CUDA stages of the training layer (layer-private): the fused L1 and L1+SSIM losses, the fused Adam update,
// densification statistics, ADC, opacity reset, MCMC relocation and noise.
#include <cuda_runtime_api.h>

#include <cstddef>

#include <cstdint>

#include "radiant/core/adam_update.hpp"
#include "radiant/core/appearance.hpp"
#include "radiant/core/densify_rules.hpp"

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
    int per;        // elements a Gaussian
    // SH group: when not null, `grads` is not read; each element's gradient is formed from its Gaussian's
    // ShGradSource [N, 6] (core/sh.hpp), 0 for coefficients at or past sh_active.
    const float* sh_sources = nullptr;
    int sh_active = 0;
    // Non-null: only this group's Gaussians with radius > 0 are updated (AdamConfig::scope).
    const std::int32_t* radii = nullptr;
};
struct AdamArgs {
    AdamGroup groups[5];
    int count = 0;
    unsigned* bad;  // [3] non-finite gradients, rejected updates, non-finite values (accumulated)
};
void launch_adam(const AdamArgs& a, cudaStream_t stream);

// Quaternions back to unit length after the update (with radii: those of Gaussians with radius > 0 only).
void launch_normalize_quats(float* quats, std::size_t n, const std::int32_t* radii, cudaStream_t stream);

// A training image reduced by an integer factor (core/reduce_resolution.hpp): 8-bit RGB and, when `mask` is
// set, the mask; with `valid`, adds the reduced mask's count of pixels that count to it.
struct ReduceImageArgs {
    const std::uint8_t* rgb;
    const std::uint8_t* mask;  // null: no mask
    int width = 0, height = 0, factor = 1;
    std::uint8_t* out_rgb;
    std::uint8_t* out_mask;
    unsigned* valid;  // may be null
};
void launch_reduce_image(const ReduceImageArgs& a, cudaStream_t stream);

// Sums a loss pass accumulates (zeroed by the caller), in this order.
enum LossSum {
    kSumAbs,
    kSumSq,
    kSumSsim,
    kSumOpacity,
    kSumScale,
    kSumVisible,
    kSumAppearance,
    kSumCamera,  // 6: the camera pose gradient, ε then τ (pose refinement)
    kSumCount = kSumCamera + 6
};

// (1 − λ)·L1 + λ·(1 − SSIM) of a render [H, W, 3] against an 8-bit target, SSIM as the CPU reference
// (11×11 Gaussian window, σ 1.5, zero padding). With v_render, also ∂loss/∂render, through `planes`
// (3·H·W·3 floats of scratch); λ = 0 skips the SSIM passes. With a mask, as the CPU
// reference (train/loss.hpp): the render reads the target's value at pixels that do not count, whose
// gradient is exactly 0, and the sums cover counted pixels only; `counted` (values = 3 × counted pixels)
// normalises the gradient.
struct PhotometricArgs {
    int width = 0, height = 0;
    const float* render;
    const std::uint8_t* target;
    const std::uint8_t* mask = nullptr;  // [H, W], kMaskValid where a pixel counts; null: all count
    double counted = 0;
    float lambda = 0.2f;
    float* v_render;  // null: metrics only
    float* planes;
    double* sums;  // [kSumCount]
};
void launch_photometric(const PhotometricArgs& a, cudaStream_t stream);

// One image's appearance (core/appearance.hpp) on a render [H, W, 3]: forward into `shown`; backward from
// v_shown into v_render (written) and grad (the image's parameters, accumulated: zeroed by the caller).
struct AppearanceArgs {
    AppearanceModel model = AppearanceModel::off;
    int width = 0, height = 0;
    const float* params;
    const float* render;
    float* shown;
    const float* v_shown;
    float* v_render;
    float* grad;
};
void launch_appearance_forward(const AppearanceArgs& a, cudaStream_t stream);
void launch_appearance_backward(const AppearanceArgs& a, cudaStream_t stream);
// The regulariser's gradient added to grad (its value to sums[kSumAppearance]), then Adam on the image's
// parameters (non-finite counts into bad[3], as the Gaussians' Adam).
struct AppearanceUpdateArgs {
    AppearanceModel model = AppearanceModel::off;
    float *params, *m, *v, *grad;
    float reg = 0;
    AdamElementConfig adam;
    double* sums;
    unsigned* bad;
};
void launch_appearance_update(const AppearanceUpdateArgs& a, cudaStream_t stream);

// Parameter views for the per-Gaussian kernels.
struct GaussianArrays {
    float *means, *log_scales, *quats, *opacity_logits, *sh;
};

// MCMC regularisers added to the gradients (after the backward): λo·mean(opacity), λs·mean(scale), the means
// over `count` Gaussians (n here; the whole scene's when these n are one rank's share).
void launch_mcmc_regularisers(GaussianArrays params, GaussianArrays grads, std::size_t n, double count,
                              float opacity_reg, float scale_reg, double* sums, cudaStream_t stream);

// into[i] += from[i] (a batch's gradients, summed over its views).
void launch_add_into(float* into, const float* from, std::size_t n, cudaStream_t stream);

// Densification statistics of visible Gaussians (radius > 0): Σ‖∂L/∂mean2d‖, count, largest radius.
struct DensifyStatsView {
    float* grad_accum;
    std::int32_t* denom;
    float* max_radii;
};
void launch_accumulate_stats(DensifyStatsView stats, const float* norms, const int* radii, std::size_t n,
                             double* sums, cudaStream_t stream);

// ADC, first pass: the action of every Gaussian, its output count [n] (counts[n] = 0 for the scan) and the
// clone/split/prune totals [3].
void launch_adc_actions(GaussianArrays params, DensifyStatsView stats, std::size_t n, const AdcRule& rule,
                        std::uint32_t* actions, std::uint32_t* counts, std::uint32_t* totals,
                        cudaStream_t stream);
// ADC, second pass: writes the kept, cloned and split Gaussians at their scanned offsets into `out` (new
// Adam moments zero for copies and children). A split's draws are keyed by keys[i] (null: by i).
void launch_adc_write(GaussianArrays params, GaussianArrays m, GaussianArrays v, GaussianArrays out_params,
                      GaussianArrays out_m, GaussianArrays out_v, std::size_t n, int sh_coeffs,
                      const std::uint32_t* actions, const std::uint32_t* offsets, std::uint64_t seed,
                      const std::uint64_t* keys, cudaStream_t stream);

void launch_reset_opacity(float* opacity_logits, float* m, float* v, std::size_t n, float cap_logit,
                          cudaStream_t stream);

// MCMC: opacity weights (dead ones 0 in `alive`) and dead flags.
void launch_mcmc_weights(const float* opacity_logits, std::size_t n, float min_opacity, double* alive,
                         double* all, std::uint32_t* dead, cudaStream_t stream);
// Scatters the indices whose flag is set to out[offsets[i]].
void launch_scatter_flagged(const std::uint32_t* flags, const std::uint32_t* offsets, std::size_t n,
                            std::int32_t* out, cudaStream_t stream);
// Inverse-CDF sampling of `count` sources from an inclusive prefix sum; copies[source] += 1 per draw.
void launch_sample_by_cdf(const double* cdf, std::size_t n, double total, std::size_t count,
                          std::uint64_t seed, std::uint64_t counter0, std::int32_t* sources,
                          std::uint32_t* copies, cudaStream_t stream);
// The correction for every Gaussian drawn (copies > 0) and its Adam moments zeroed.
void launch_mcmc_correct(GaussianArrays params, GaussianArrays m, GaussianArrays v, std::size_t n,
                         int sh_coeffs, const std::uint32_t* copies, cudaStream_t stream);
// dst[k] ← src[k] for the Gaussian parameters (moments of dst zeroed); dst and src index the same arrays.
void launch_copy_gaussians(GaussianArrays params, GaussianArrays m, GaussianArrays v, int sh_coeffs,
                           const std::int32_t* dst, std::size_t dst_base, const std::int32_t* src,
                           std::size_t count, cudaStream_t stream);
// Each Gaussian's draw keyed by keys[i] (null: by i).
void launch_mcmc_noise(GaussianArrays params, std::size_t n, float scale, std::uint64_t seed,
                       const std::uint64_t* keys, cudaStream_t stream);

// Parameters with both Adam moments.
struct GaussianMoments {
    GaussianArrays params, m, v;
};
// Row j of `out` is row from[j] of `a` (its first na rows) or, where from[j] ≥ na, row from[j] − na of `b`.
void launch_gather_gaussians(GaussianMoments a, std::size_t na, GaussianMoments b, const std::uint32_t* from,
                             std::size_t count, int sh_coeffs, GaussianMoments out, cudaStream_t stream);

}  // namespace radiant::cuda
