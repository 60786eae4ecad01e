#pragma once
// The `ewa` screen-space footprint (DESIGN.md §2): Σ' = J W Σ Wᵀ Jᵀ + eps2d·I, conic = Σ'⁻¹.
// W Σ Wᵀ (the camera-frame covariance) is formed by the caller; J is the perspective Jacobian.
#include <cmath>

#include "radiant/core/camera.hpp"

namespace radiant {

template <class T>
RADIANT_HD T clamp_value(T v, T lo, T hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

// Rows of the 2×3 Jacobian of pixel coordinates w.r.t. the camera-frame point. As in Inria 3DGS and
// gsplat, x/z and y/z are clamped to 1.3× the half field of view so far off-screen Gaussians stay bounded.
template <class T>
struct PerspectiveJacobian {
    Vec3<T> row0, row1;  // [fx/z, 0, −fx·tx/z²], [0, fy/z, −fy·ty/z²]
    T tx, ty;            // clamped x, y
    bool clamped_x, clamped_y;
};

template <class T>
RADIANT_HD PerspectiveJacobian<T> perspective_jacobian(const PinholeParams<T>& cam, Vec3<T> p) {
    T tan_x = T(0.5) * T(cam.width) / cam.fx, tan_y = T(0.5) * T(cam.height) / cam.fy;
    T lim_x_pos = (T(cam.width) - cam.cx) / cam.fx + T(0.3) * tan_x;
    T lim_x_neg = cam.cx / cam.fx + T(0.3) * tan_x;
    T lim_y_pos = (T(cam.height) - cam.cy) / cam.fy + T(0.3) * tan_y;
    T lim_y_neg = cam.cy / cam.fy + T(0.3) * tan_y;
    T inv_z = T(1) / p.z;
    T u = p.x * inv_z, v = p.y * inv_z;
    PerspectiveJacobian<T> j;
    j.clamped_x = u < -lim_x_neg || u > lim_x_pos;
    j.clamped_y = v < -lim_y_neg || v > lim_y_pos;
    j.tx = p.z * clamp_value(u, -lim_x_neg, lim_x_pos);
    j.ty = p.z * clamp_value(v, -lim_y_neg, lim_y_pos);
    j.row0 = {cam.fx * inv_z, T(0), -cam.fx * j.tx * inv_z * inv_z};
    j.row1 = {T(0), cam.fy * inv_z, -cam.fy * j.ty * inv_z * inv_z};
    return j;
}

// Σ' = J Σ_cam Jᵀ + eps2d·I.
template <class T>
RADIANT_HD Sym2<T> ewa_cov2d(const PinholeParams<T>& cam, Vec3<T> p_cam, const Mat3<T>& cov_cam, T eps2d) {
    PerspectiveJacobian<T> j = perspective_jacobian(cam, p_cam);
    Vec3<T> s0 = cov_cam * j.row0, s1 = cov_cam * j.row1;
    return {dot(j.row0, s0) + eps2d, dot(j.row0, s1), dot(j.row1, s1) + eps2d};
}

// Mip-Splatting's 2D filter (gsplat's rasterize_mode="antialiased"): the low-pass eps2d·I widens each
// footprint, which alone adds energy — a splat smaller than a pixel shows brighter and thicker the further
// the camera zooms out. Scaling its opacity by √(det Σ / det(Σ + eps2d·I)) keeps the integral of its
// response. Takes Σ' = Σ + eps2d·I (what ewa_cov2d returns); 0 when Σ is degenerate.
template <class T>
RADIANT_HD T aa_compensation(Sym2<T> cov2d, T eps2d) {
    const T det_filtered = cov2d.a * cov2d.c - cov2d.b * cov2d.b;
    const T det = (cov2d.a - eps2d) * (cov2d.c - eps2d) - cov2d.b * cov2d.b;
    const T ratio = det / det_filtered;
    return ratio > T(0) ? std::sqrt(ratio) : T(0);
}

// ∂L/∂Σ' (stored form) from ∂L/∂(the compensation).
template <class T>
RADIANT_HD Sym2<T> aa_compensation_vjp(Sym2<T> cov2d, T eps2d, T v_comp) {
    const T det_filtered = cov2d.a * cov2d.c - cov2d.b * cov2d.b;
    const T det = (cov2d.a - eps2d) * (cov2d.c - eps2d) - cov2d.b * cov2d.b;
    const T ratio = det / det_filtered;
    if (!(ratio > T(0))) return {};
    // ratio = det / det_filtered; ∂comp = ∂ratio / (2 comp)
    const T k = v_comp / (T(2) * std::sqrt(ratio) * det_filtered * det_filtered);
    return {k * ((cov2d.c - eps2d) * det_filtered - det * cov2d.c),
            k * T(-2) * cov2d.b * (det_filtered - det),
            k * ((cov2d.a - eps2d) * det_filtered - det * cov2d.a)};
}

// Adds ∂L/∂Σ_cam and ∂L/∂p_cam given ∂L/∂Σ' in stored form (v_b is the gradient of the single stored
// off-diagonal, which stands for both b entries of the matrix).
template <class T>
RADIANT_HD void ewa_cov2d_vjp(const PinholeParams<T>& cam, Vec3<T> p_cam, const Mat3<T>& cov_cam,
                              Sym2<T> v_cov2d, Mat3<T>& v_cov_cam, Vec3<T>& v_p_cam) {
    PerspectiveJacobian<T> j = perspective_jacobian(cam, p_cam);
    T g00 = v_cov2d.a, g01 = T(0.5) * v_cov2d.b, g11 = v_cov2d.c;
    // v_Σ = Jᵀ G J
    Mat3<T> add;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            add.m[r][c] = g00 * j.row0[r] * j.row0[c] +
                          g01 * (j.row0[r] * j.row1[c] + j.row1[r] * j.row0[c]) + g11 * j.row1[r] * j.row1[c];
    v_cov_cam = v_cov_cam + add;
    // v_J (rows) = 2 G J Σ
    Vec3<T> s0 = cov_cam * j.row0, s1 = cov_cam * j.row1;
    Vec3<T> v_row0 = T(2) * (g00 * s0 + g01 * s1);
    Vec3<T> v_row1 = T(2) * (g01 * s0 + g11 * s1);
    // J entries: row0 = (fx/z, 0, −fx tx/z²), row1 = (0, fy/z, −fy ty/z²).
    T inv_z = T(1) / p_cam.z, inv_z2 = inv_z * inv_z, inv_z3 = inv_z2 * inv_z;
    v_p_cam.z += -cam.fx * inv_z2 * v_row0.x - cam.fy * inv_z2 * v_row1.y;
    if (j.clamped_x) {
        v_p_cam.z += cam.fx * j.tx * inv_z3 * v_row0.z;  // tx = z·const: −fx·const/z
    } else {
        v_p_cam.x += -cam.fx * inv_z2 * v_row0.z;
        v_p_cam.z += T(2) * cam.fx * j.tx * inv_z3 * v_row0.z;
    }
    if (j.clamped_y) {
        v_p_cam.z += cam.fy * j.ty * inv_z3 * v_row1.z;
    } else {
        v_p_cam.y += -cam.fy * inv_z2 * v_row1.z;
        v_p_cam.z += T(2) * cam.fy * j.ty * inv_z3 * v_row1.z;
    }
}

// Inverse of a symmetric 2×2 matrix; false when it is not positive definite.
template <class T>
RADIANT_HD bool inverse(Sym2<T> m, Sym2<T>& inv) {
    T det = m.a * m.c - m.b * m.b;
    if (!(det > T(0)) || !(m.a > T(0))) return false;
    T r = T(1) / det;
    inv = {m.c * r, -m.b * r, m.a * r};
    return true;
}

// ∂L/∂M from ∂L/∂M⁻¹ (both in stored form): dM⁻¹ = −M⁻¹ dM M⁻¹.
template <class T>
RADIANT_HD Sym2<T> inverse_vjp(Sym2<T> inv, Sym2<T> v_inv) {
    T g00 = v_inv.a, g01 = T(0.5) * v_inv.b, g11 = v_inv.c;
    // −C G C with C = [[a, b], [b, c]]
    T cg00 = inv.a * g00 + inv.b * g01, cg01 = inv.a * g01 + inv.b * g11;
    T cg10 = inv.b * g00 + inv.c * g01, cg11 = inv.b * g01 + inv.c * g11;
    T m00 = cg00 * inv.a + cg01 * inv.b, m01 = cg00 * inv.b + cg01 * inv.c;
    T m11 = cg10 * inv.b + cg11 * inv.c;
    return {-m00, T(-2) * m01, -m11};
}

template <class T>
RADIANT_HD Vec3<T> project_pinhole_vjp(const PinholeParams<T>& cam, Vec3<T> p_cam, Vec2<T> v_mean2d) {
    T inv_z = T(1) / p_cam.z;
    return {cam.fx * inv_z * v_mean2d.x, cam.fy * inv_z * v_mean2d.y,
            -(cam.fx * p_cam.x * v_mean2d.x + cam.fy * p_cam.y * v_mean2d.y) * inv_z * inv_z};
}

// Squared extent, in σ units, of the footprint that can reach α ≥ alpha_cutoff, capped at radius_scale σ:
// min(radius_scale², 2 ln(opacity / alpha_cutoff)). Non-positive when the Gaussian can never be visible.
template <class T>
RADIANT_HD T footprint_extent_sq(T opacity, T alpha_cutoff, T radius_scale) {
    if (!(opacity > alpha_cutoff)) return T(0);
    T k2 = T(2) * std::log(opacity / alpha_cutoff);
    T r2 = radius_scale * radius_scale;
    return k2 < r2 ? k2 : r2;
}

}  // namespace radiant
