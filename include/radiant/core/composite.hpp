#pragma once
// Per-pixel, per-hit maths of the raster (DESIGN.md §1, §2), shared by both backends:
//   power = −½ dᵀ conic d,  d = pixel centre − mean2d
//   α = min(0.99, opacity·exp(power)), the hit is skipped when α < alpha_cutoff or −2·power > extent²
//   C = Σ_i T_i α_i c_i + T_final·background,  T_{i+1} = T_i (1 − α_i)
// The extent test makes the footprint exactly the ellipse that binning uses, so the tiled raster equals
// a brute-force evaluation over all Gaussians.
#include <cmath>

#include "radiant/core/vec.hpp"

namespace radiant {

constexpr double kMaxAlpha = 0.99;

template <class T>
RADIANT_HD T conic_power(Sym2<T> conic, Vec2<T> d) {
    return T(-0.5) * (conic.a * d.x * d.x + conic.c * d.y * d.y) - conic.b * d.x * d.y;
}

// A pixel's expected depth: Σ_i T_i α_i z_i (the hits' weighted camera z) over its coverage 1 − T_final;
// 0 where nothing was hit.
template <class T>
RADIANT_HD T expected_depth(T weighted_depth, T final_transmittance) {
    const T coverage = T(1) - final_transmittance;
    return coverage > T(0) ? weighted_depth / coverage : T(0);
}

// A pixel's median depth is the camera z of the hit at which its transmittance first falls below ½: the
// surface the ray reaches, where the expected depth blends a foreground edge with what lies behind it (2DGS,
// RaDe-GS). 0 where the coverage never reaches ½.
template <class T>
RADIANT_HD bool is_median_hit(T t_before, T t_after) {
    return t_before >= T(0.5) && t_after < T(0.5);
}

// α of one Gaussian at one pixel; false when the hit is skipped. `g` receives exp(power), which the gradient
// of a kept hit reuses (splat_alpha_vjp's second form) instead of evaluating the exponential again.
template <class T>
RADIANT_HD bool splat_alpha(Sym2<T> conic, Vec2<T> d, T opacity, T extent_sq, T alpha_cutoff, T& alpha,
                            T& g) {
    T power = conic_power(conic, d);
    if (power > T(0) || T(-2) * power > extent_sq) return false;
    g = std::exp(power);
    T a = opacity * g;
    alpha = a < T(kMaxAlpha) ? a : T(kMaxAlpha);
    return alpha >= alpha_cutoff;
}

template <class T>
RADIANT_HD bool splat_alpha(Sym2<T> conic, Vec2<T> d, T opacity, T extent_sq, T alpha_cutoff, T& alpha) {
    T g;
    return splat_alpha(conic, d, opacity, extent_sq, alpha_cutoff, alpha, g);
}

// Adds ∂L/∂conic (stored form), ∂L/∂mean2d and ∂L/∂opacity from ∂L/∂α for a hit that splat_alpha kept, whose
// exp(power) is g. The clamp at 0.99 passes no gradient.
template <class T>
RADIANT_HD void splat_alpha_vjp(Sym2<T> conic, Vec2<T> d, T opacity, T g, T v_alpha, Sym2<T>& v_conic,
                                Vec2<T>& v_mean2d, T& v_opacity) {
    if (!(opacity * g < T(kMaxAlpha))) return;
    v_opacity += g * v_alpha;
    T v_power = opacity * g * v_alpha;
    v_conic.a += T(-0.5) * d.x * d.x * v_power;
    v_conic.b += -d.x * d.y * v_power;
    v_conic.c += T(-0.5) * d.y * d.y * v_power;
    // ∂power/∂d = −(conic·d); d = pixel − mean2d.
    v_mean2d.x += (conic.a * d.x + conic.b * d.y) * v_power;
    v_mean2d.y += (conic.b * d.x + conic.c * d.y) * v_power;
}

template <class T>
RADIANT_HD void splat_alpha_vjp(Sym2<T> conic, Vec2<T> d, T opacity, T v_alpha, Sym2<T>& v_conic,
                                Vec2<T>& v_mean2d, T& v_opacity) {
    splat_alpha_vjp(conic, d, opacity, T(std::exp(conic_power(conic, d))), v_alpha, v_conic, v_mean2d,
                    v_opacity);
}

}  // namespace radiant
