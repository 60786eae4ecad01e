#pragma once
// The per-Gaussian rules of densification (DESIGN.md §6), shared by the CPU plan and the CUDA kernels:
// which Gaussians ADC clones, splits or prunes, where a split's two children go, and the MCMC
// opacity/scale correction for a Gaussian shared between several copies.
#include <cmath>
#include <cstdint>

#include "radiant/core/covariance.hpp"
#include "radiant/core/hd.hpp"
#include "radiant/core/random.hpp"
#include "radiant/core/scene.hpp"

namespace radiant {

// ADC's statistic from a screen-space mean gradient in pixels: its norm in gsplat's units (each axis scaled
// by half the image size, as if taken in NDC), so the 2e-4 threshold keeps its meaning at any resolution.
template <class T>
RADIANT_HD T mean2d_grad_norm(Vec2<T> v_pixels, int width, int height) {
    const T hx = v_pixels.x * (T(0.5) * T(width)), hy = v_pixels.y * (T(0.5) * T(height));
    return std::sqrt(hx * hx + hy * hy);
}

// ADC thresholds resolved for one densification step (world sizes already multiplied by the extent).
struct AdcRule {
    float grad_threshold = 2e-4f;
    float clone_max_scale = 0;  // clone when the largest scale ≤ this, else split
    float min_opacity = 0.005f;
    bool big_prune = false;  // after the first opacity reset: also prune by screen radius and world scale
    float max_screen_radius = 0;  // pixels; 0: no screen-size prune
    float max_world_scale = 0;
};

enum AdcAction : std::uint32_t { kAdcClone = 1, kAdcSplit = 2, kAdcPrune = 4 };

// Bitwise OR of AdcAction for one Gaussian from its statistics and parameters.
template <class T>
RADIANT_HD std::uint32_t adc_action(T grad_accum, std::int32_t denom, T max_radius, T max_log_scale,
                                    T opacity_logit, const AdcRule& r) {
    const T grad = denom > 0 ? grad_accum / T(denom) : T(0);
    const T scale = std::exp(max_log_scale);
    std::uint32_t a = 0;
    if (grad >= T(r.grad_threshold)) a |= scale <= T(r.clone_max_scale) ? kAdcClone : kAdcSplit;
    bool prune = sigmoid(opacity_logit) < T(r.min_opacity);
    if (r.big_prune)
        prune = prune || (r.max_screen_radius > 0 && max_radius > T(r.max_screen_radius)) ||
                scale > T(r.max_world_scale);
    if (prune) a |= kAdcPrune;
    return a;
}

// How many Gaussians an action leaves in place of the original: a split is two children (the original
// goes), a clone keeps the original unless it is pruned and adds a copy; children and copies are never
// pruned in the step that makes them.
RADIANT_HD int adc_outputs(std::uint32_t a) {
    if (a & kAdcSplit) return 2;
    return ((a & kAdcPrune) ? 0 : 1) + ((a & kAdcClone) ? 1 : 0);
}

// Split child `copy` (0 or 1) of Gaussian `gaussian`: mean offset by R·(s ∘ z), z ~ N(0, I) drawn from
// (seed, gaussian, copy), scales divided by 1.6.
template <class T>
RADIANT_HD void split_child(Vec3<T> mean, Vec3<T> log_scale, Vec4<T> quat, std::uint64_t seed,
                            std::uint64_t gaussian, int copy, Vec3<T>& out_mean, Vec3<T>& out_log_scale) {
    const std::uint64_t base = (gaussian * 2 + std::uint64_t(copy)) * 3;
    const Vec3<T> s = exp3(log_scale);
    const Vec3<T> z{T(normal01(seed, base)) * s.x, T(normal01(seed, base + 1)) * s.y,
                    T(normal01(seed, base + 2)) * s.z};
    out_mean = mean + quat_to_rotmat(quat) * z;
    const T shrink = T(0.47000362924573558);  // log(1.6)
    out_log_scale = {log_scale.x - shrink, log_scale.y - shrink, log_scale.z - shrink};
}

// The MCMC correction for a Gaussian duplicated into n copies (n ≥ 1, at most 51 counted): opacity
// 1 − (1 − o)^(1/n) and scales multiplied by o / Σ_{i=1..n} Σ_{k=0..i−1} C(i−1, k) (−1)^k o_new^(k+1) /
// √(k+1).
template <class T>
RADIANT_HD void mcmc_correction(T opacity, int copies, T& new_opacity, T& scale_factor) {
    const int n = copies < 1 ? 1 : (copies > 51 ? 51 : copies);
    new_opacity = T(1) - std::pow(T(1) - opacity, T(1) / T(n));
    T denom = 0;
    for (int i = 1; i <= n; ++i) {
        T binom = 1;  // C(i−1, k)
        T power = new_opacity;
        for (int k = 0; k <= i - 1; ++k) {
            denom += binom * (k % 2 ? T(-1) : T(1)) * power / std::sqrt(T(k + 1));
            binom = binom * T(i - 1 - k) / T(k + 1);
            power *= new_opacity;
        }
    }
    scale_factor = opacity / denom;
}

// MCMC position-noise gate: only nearly transparent Gaussians move, sigmoid(100 (1 − o − 0.995)).
template <class T>
RADIANT_HD T mcmc_noise_gate(T opacity) {
    return T(1) / (T(1) + std::exp(T(-100) * (T(1) - opacity - T(0.995))));
}

// MCMC position noise for one Gaussian: Σ·z · gate(o) · scale with z ~ N(0, I) drawn from (seed, gaussian).
template <class T>
RADIANT_HD Vec3<T> mcmc_noise_offset(Vec3<T> log_scale, Vec4<T> quat, T opacity_logit, T scale,
                                     std::uint64_t seed, std::uint64_t gaussian) {
    const Mat3<T> cov = covariance(log_scale, quat);
    const Vec3<T> z{T(normal01(seed, 3 * gaussian)), T(normal01(seed, 3 * gaussian + 1)),
                    T(normal01(seed, 3 * gaussian + 2))};
    return (mcmc_noise_gate(sigmoid(opacity_logit)) * scale) * (cov * z);
}

}  // namespace radiant
