#pragma once
// Quaternions are stored w, x, y, z and need not be unit: every use normalises first (DESIGN.md §3).
#include "radiant/core/vec.hpp"

namespace radiant {

// Rotation matrix of the normalised quaternion. Vec4 holds the stored order: x = qw, y = qx, z = qy, w = qz.
template <class T>
RADIANT_HD Mat3<T> quat_to_rotmat(Vec4<T> quat) {
    T inv = T(1) / std::sqrt(dot(quat, quat));
    T w = quat.x * inv, x = quat.y * inv, y = quat.z * inv, z = quat.w * inv;
    Mat3<T> r;
    r.m[0][0] = T(1) - T(2) * (y * y + z * z);
    r.m[0][1] = T(2) * (x * y - w * z);
    r.m[0][2] = T(2) * (x * z + w * y);
    r.m[1][0] = T(2) * (x * y + w * z);
    r.m[1][1] = T(1) - T(2) * (x * x + z * z);
    r.m[1][2] = T(2) * (y * z - w * x);
    r.m[2][0] = T(2) * (x * z - w * y);
    r.m[2][1] = T(2) * (y * z + w * x);
    r.m[2][2] = T(1) - T(2) * (x * x + y * y);
    return r;
}

// ∂L/∂quat (unnormalised storage) from ∂L/∂R; the normalisation is differentiated too.
template <class T>
RADIANT_HD Vec4<T> quat_to_rotmat_vjp(Vec4<T> quat, const Mat3<T>& v_r) {
    T inv = T(1) / std::sqrt(dot(quat, quat));
    T w = quat.x * inv, x = quat.y * inv, y = quat.z * inv, z = quat.w * inv;
    const auto& v = v_r.m;
    Vec4<T> v_n;
    v_n.x = T(2) * (x * (v[2][1] - v[1][2]) + y * (v[0][2] - v[2][0]) + z * (v[1][0] - v[0][1]));
    v_n.y = T(2) * (y * (v[0][1] + v[1][0]) + z * (v[0][2] + v[2][0]) + w * (v[2][1] - v[1][2]) -
                    T(2) * x * (v[1][1] + v[2][2]));
    v_n.z = T(2) * (x * (v[0][1] + v[1][0]) + z * (v[1][2] + v[2][1]) + w * (v[0][2] - v[2][0]) -
                    T(2) * y * (v[0][0] + v[2][2]));
    v_n.w = T(2) * (x * (v[0][2] + v[2][0]) + y * (v[1][2] + v[2][1]) + w * (v[1][0] - v[0][1]) -
                    T(2) * z * (v[0][0] + v[1][1]));
    // Through q / |q|: (v − n (n·v)) / |q|.
    Vec4<T> n{w, x, y, z};
    T nv = dot(n, v_n);
    return {inv * (v_n.x - n.x * nv), inv * (v_n.y - n.y * nv), inv * (v_n.z - n.z * nv),
            inv * (v_n.w - n.w * nv)};
}

}  // namespace radiant
