#pragma once
// 3D covariance of a Gaussian: Σ = M Mᵀ with M = R(quat) · diag(exp(log_scale)).
#include <cmath>

#include "radiant/core/quat.hpp"

namespace radiant {

template <class T>
RADIANT_HD Vec3<T> exp3(Vec3<T> v) {
    return {std::exp(v.x), std::exp(v.y), std::exp(v.z)};
}

template <class T>
RADIANT_HD Mat3<T> covariance(Vec3<T> log_scale, Vec4<T> quat) {
    Mat3<T> m = quat_to_rotmat(quat) * Mat3<T>::diagonal(exp3(log_scale));
    return m * transpose(m);
}

// Adds ∂L/∂log_scale and ∂L/∂quat given ∂L/∂Σ (a full 3×3 gradient; its symmetric part is used).
template <class T>
RADIANT_HD void covariance_vjp(Vec3<T> log_scale, Vec4<T> quat, const Mat3<T>& v_cov, Vec3<T>& v_log_scale,
                               Vec4<T>& v_quat) {
    Mat3<T> r = quat_to_rotmat(quat);
    Vec3<T> s = exp3(log_scale);
    Mat3<T> m = r * Mat3<T>::diagonal(s);
    Mat3<T> v_m = (v_cov + transpose(v_cov)) * m;  // d(M Mᵀ) = dM Mᵀ + M dMᵀ
    Mat3<T> v_r;
    Vec3<T> v_s;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            v_r.m[i][j] = v_m.m[i][j] * s[j];
            v_s[j] += v_m.m[i][j] * r.m[i][j];
        }
    v_log_scale += v_s * s;
    Vec4<T> vq = quat_to_rotmat_vjp(quat, v_r);
    v_quat.x += vq.x;
    v_quat.y += vq.y;
    v_quat.z += vq.z;
    v_quat.w += vq.w;
}

}  // namespace radiant

namespace radiant {

// max_anisotropy (DESIGN.md §4): raises the smaller log-scales so that largest/smallest ≤ max_anisotropy.
// 0 = off. The clamped axes take their value, and so their gradient, from the largest axis.
template <class T>
RADIANT_HD Vec3<T> clamp_anisotropy(Vec3<T> log_scale, T max_anisotropy) {
    if (!(max_anisotropy > T(0))) return log_scale;
    T top = log_scale.x > log_scale.y ? (log_scale.x > log_scale.z ? log_scale.x : log_scale.z)
                                      : (log_scale.y > log_scale.z ? log_scale.y : log_scale.z);
    T floor = top - std::log(max_anisotropy);
    for (int k = 0; k < 3; ++k)
        if (log_scale[k] < floor) log_scale[k] = floor;
    return log_scale;
}

// ∂L/∂log_scale (raw) from ∂L/∂(clamped log_scale).
template <class T>
RADIANT_HD Vec3<T> clamp_anisotropy_vjp(Vec3<T> log_scale, T max_anisotropy, Vec3<T> v_clamped) {
    if (!(max_anisotropy > T(0))) return v_clamped;
    int top = log_scale.x >= log_scale.y ? (log_scale.x >= log_scale.z ? 0 : 2)
                                         : (log_scale.y >= log_scale.z ? 1 : 2);
    T floor = log_scale[top] - std::log(max_anisotropy);
    Vec3<T> v{};
    for (int k = 0; k < 3; ++k) {
        if (k != top && log_scale[k] < floor)
            v[top] += v_clamped[k];
        else
            v[k] += v_clamped[k];
    }
    return v;
}

}  // namespace radiant
