#pragma once
// Real spherical harmonics up to degree 3 with the constants and signs of Inria 3DGS, so scenes look the
// same in every 3DGS viewer. Coefficients of one Gaussian are laid out [K, 3] (K = (degree+1)², RGB
// innermost). colour = max(0, Σ_k b_k(dir)·c_k + 0.5), dir = normalize(μ − camera centre) (DESIGN.md §3).
#include "radiant/core/vec.hpp"

namespace radiant {

constexpr int kMaxShDegree = 3;
constexpr int kMaxShCoeffs = 16;
RADIANT_HD constexpr int sh_coeff_count(int degree) {
    return (degree + 1) * (degree + 1);
}

constexpr double kShC0 = 0.28209479177387814;
constexpr double kShC1 = 0.4886025119029199;
// Scalars rather than arrays: nvcc can use constexpr scalars in device code, not namespace-scope arrays.
constexpr double kShC2_0 = 1.0925484305920792, kShC2_1 = -1.0925484305920792, kShC2_2 = 0.31539156525252005,
                 kShC2_3 = -1.0925484305920792, kShC2_4 = 0.5462742152960396;
constexpr double kShC3_0 = -0.5900435899266435, kShC3_1 = 2.890611442640554, kShC3_2 = -0.4570457994644658,
                 kShC3_3 = 0.3731763325901154, kShC3_4 = -0.4570457994644658, kShC3_5 = 1.445305721320277,
                 kShC3_6 = -0.5900435899266435;

// Basis values b[k], k < sh_coeff_count(degree), for a unit direction. Every product and sum is rounded as
// written (mul_rn, core/hd.hpp): the optimizer rebuilds SH gradients from the direction (sh_coeff_grad) and
// must get the geometry backward's basis to the bit.
template <class T>
RADIANT_HD void sh_basis(int degree, Vec3<T> dir, T* b) {
    b[0] = T(kShC0);
    if (degree < 1) return;
    const T x = dir.x, y = dir.y, z = dir.z;
    b[1] = mul_rn(-T(kShC1), y);
    b[2] = mul_rn(T(kShC1), z);
    b[3] = mul_rn(-T(kShC1), x);
    if (degree < 2) return;
    const T xx = mul_rn(x, x), yy = mul_rn(y, y), zz = mul_rn(z, z);
    const T xx_yy = sub_rn(xx, yy);
    const T zz2_xx_yy = sub_rn(sub_rn(mul_rn(T(2), zz), xx), yy);  // 2z² − x² − y²
    b[4] = mul_rn(mul_rn(T(kShC2_0), x), y);
    b[5] = mul_rn(mul_rn(T(kShC2_1), y), z);
    b[6] = mul_rn(T(kShC2_2), zz2_xx_yy);
    b[7] = mul_rn(mul_rn(T(kShC2_3), x), z);
    b[8] = mul_rn(T(kShC2_4), xx_yy);
    if (degree < 3) return;
    const T zz4_xx_yy = sub_rn(sub_rn(mul_rn(T(4), zz), xx), yy);  // 4z² − x² − y²
    b[9] = mul_rn(mul_rn(T(kShC3_0), y), sub_rn(mul_rn(T(3), xx), yy));
    b[10] = mul_rn(mul_rn(mul_rn(T(kShC3_1), x), y), z);
    b[11] = mul_rn(mul_rn(T(kShC3_2), y), zz4_xx_yy);
    b[12] =
        mul_rn(mul_rn(T(kShC3_3), z), sub_rn(sub_rn(mul_rn(T(2), zz), mul_rn(T(3), xx)), mul_rn(T(3), yy)));
    b[13] = mul_rn(mul_rn(T(kShC3_4), x), zz4_xx_yy);
    b[14] = mul_rn(mul_rn(T(kShC3_5), z), xx_yy);
    b[15] = mul_rn(mul_rn(T(kShC3_6), x), sub_rn(xx, mul_rn(T(3), yy)));
}

// Gradients ∂b_k/∂(x, y, z) of the basis polynomials (x, y, z treated as independent; the caller chains
// through the normalisation of dir).
template <class T>
RADIANT_HD void sh_basis_grad(int degree, Vec3<T> dir, Vec3<T>* g) {
    g[0] = {};
    if (degree < 1) return;
    T x = dir.x, y = dir.y, z = dir.z;
    T c1 = T(kShC1);
    g[1] = {T(0), -c1, T(0)};
    g[2] = {T(0), T(0), c1};
    g[3] = {-c1, T(0), T(0)};
    if (degree < 2) return;
    T xx = x * x, yy = y * y, zz = z * z;
    g[4] = T(kShC2_0) * Vec3<T>{y, x, T(0)};
    g[5] = T(kShC2_1) * Vec3<T>{T(0), z, y};
    g[6] = T(kShC2_2) * Vec3<T>{T(-2) * x, T(-2) * y, T(4) * z};
    g[7] = T(kShC2_3) * Vec3<T>{z, T(0), x};
    g[8] = T(kShC2_4) * Vec3<T>{T(2) * x, T(-2) * y, T(0)};
    if (degree < 3) return;
    g[9] = T(kShC3_0) * Vec3<T>{T(6) * x * y, T(3) * (xx - yy), T(0)};
    g[10] = T(kShC3_1) * Vec3<T>{y * z, x * z, x * y};
    g[11] = T(kShC3_2) * Vec3<T>{T(-2) * x * y, T(4) * zz - xx - T(3) * yy, T(8) * y * z};
    g[12] = T(kShC3_3) * Vec3<T>{T(-6) * x * z, T(-6) * y * z, T(6) * zz - T(3) * (xx + yy)};
    g[13] = T(kShC3_4) * Vec3<T>{T(4) * zz - T(3) * xx - yy, T(-2) * x * y, T(8) * x * z};
    g[14] = T(kShC3_5) * Vec3<T>{T(2) * x * z, T(-2) * y * z, xx - yy};
    g[15] = T(kShC3_6) * Vec3<T>{T(3) * (xx - yy), T(-6) * x * y, T(0)};
}

// Colour of one Gaussian seen along `dir` (unit) from its coefficients [K, 3]; `clamped` (optional) gets
// per channel whether the max(0, ·) was active, which stops that channel's gradient. The degree is a template
// parameter here so kernels keep the basis in registers; the runtime-degree versions below dispatch to it.
template <int D, class T>
RADIANT_HD Vec3<T> sh_to_colour_fixed(const T* coeffs, Vec3<T> dir, bool* clamped) {
    T b[kMaxShCoeffs];
    sh_basis(D, dir, b);
    Vec3<T> c{};
    RADIANT_UNROLL
    for (int k = 0; k < sh_coeff_count(D); ++k)
        c += b[k] * Vec3<T>{coeffs[3 * k], coeffs[3 * k + 1], coeffs[3 * k + 2]};
    Vec3<T> out;
    RADIANT_UNROLL
    for (int ch = 0; ch < 3; ++ch) {
        T v = c[ch] + T(0.5);
        if (clamped) clamped[ch] = v < T(0);
        out[ch] = v < T(0) ? T(0) : v;
    }
    return out;
}

// What a Gaussian's SH gradient is made of: ∂L/∂coeffs[k][c] = b_k(dir)·v_colour[c], with v_colour the
// colour's gradient past the clamp (0 in a clamped channel) and dir the unit view direction. Six floats
// instead of 3·K: the CUDA trainer stores these and its optimizer forms the SH gradient where it reads it.
template <class T>
struct ShGradSource {
    Vec3<T> v_colour, dir;
};

// ∂L/∂coeffs[k][c] from its source, bit for bit what sh_to_colour_vjp adds into a zeroed v_coeffs, given
// b_k = sh_basis(dir)[k] and v_c = v_colour[c]; coefficients of degrees not trained (`active` false) get 0.
template <class T>
RADIANT_HD T sh_coeff_grad(T b_k, T v_c, bool active) {
    return active ? add_rn(T(0), mul_rn(b_k, v_c)) : T(0);
}

// Adds ∂L/∂coeffs ([K, 3]) and returns ∂L/∂dir given ∂L/∂colour; with `source`, also records what the
// coefficients' gradient is made of, and then v_coeffs may be null (the source alone: a kernel then holds no
// register array for the coefficients' gradient).
template <int D, class T>
RADIANT_HD Vec3<T> sh_to_colour_vjp_fixed(const T* coeffs, Vec3<T> dir, Vec3<T> v_colour, T* v_coeffs,
                                          ShGradSource<T>* source = nullptr) {
    T b[kMaxShCoeffs];
    Vec3<T> g[kMaxShCoeffs];
    bool clamped[3];
    sh_to_colour_fixed<D>(coeffs, dir, clamped);
    RADIANT_UNROLL
    for (int ch = 0; ch < 3; ++ch)
        if (clamped[ch]) v_colour[ch] = T(0);
    if (source) *source = {v_colour, dir};
    sh_basis(D, dir, b);
    sh_basis_grad(D, dir, g);
    Vec3<T> v_dir{};
    RADIANT_UNROLL
    for (int k = 0; k < sh_coeff_count(D); ++k) {
        if (v_coeffs) {
            RADIANT_UNROLL
            for (int ch = 0; ch < 3; ++ch)
                v_coeffs[3 * k + ch] = add_rn(v_coeffs[3 * k + ch], mul_rn(b[k], v_colour[ch]));
        }
        T w = coeffs[3 * k] * v_colour.x + coeffs[3 * k + 1] * v_colour.y + coeffs[3 * k + 2] * v_colour.z;
        v_dir += w * g[k];
    }
    return v_dir;
}

template <class T>
RADIANT_HD Vec3<T> sh_to_colour(int degree, const T* coeffs, Vec3<T> dir, bool* clamped = nullptr) {
    switch (degree) {
        case 0:
            return sh_to_colour_fixed<0>(coeffs, dir, clamped);
        case 1:
            return sh_to_colour_fixed<1>(coeffs, dir, clamped);
        case 2:
            return sh_to_colour_fixed<2>(coeffs, dir, clamped);
        default:
            return sh_to_colour_fixed<3>(coeffs, dir, clamped);
    }
}

template <class T>
RADIANT_HD Vec3<T> sh_to_colour_vjp(int degree, const T* coeffs, Vec3<T> dir, Vec3<T> v_colour, T* v_coeffs,
                                    ShGradSource<T>* source = nullptr) {
    switch (degree) {
        case 0:
            return sh_to_colour_vjp_fixed<0>(coeffs, dir, v_colour, v_coeffs, source);
        case 1:
            return sh_to_colour_vjp_fixed<1>(coeffs, dir, v_colour, v_coeffs, source);
        case 2:
            return sh_to_colour_vjp_fixed<2>(coeffs, dir, v_colour, v_coeffs, source);
        default:
            return sh_to_colour_vjp_fixed<3>(coeffs, dir, v_colour, v_coeffs, source);
    }
}

}  // namespace radiant
