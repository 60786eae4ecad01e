#pragma once
// Lens distortion on normalised image coordinates (x = X/Z, y = Y/Z), templated for the CPU and the kernels.
//   opencv  (radial-tangential, rational):  k = k1 k2 p1 p2 k3 k4 k5 k6 (missing ones 0)
//           radial = (1 + k1 r² + k2 r⁴ + k3 r⁶) / (1 + k4 r² + k5 r⁴ + k6 r⁶)
//           xd = x·radial + 2 p1 x y + p2 (r² + 2 x²),  yd = y·radial + p1 (r² + 2 y²) + 2 p2 x y
//   fisheye (equidistant): θ = atan(r), θd = θ (1 + k1 θ² + k2 θ⁴ + k3 θ⁶ + k4 θ⁸), (xd, yd) = (θd / r)(x, y)
// Undistortion inverts these by Newton iteration.
#include <cmath>

#include "radiant/core/camera.hpp"

namespace radiant {

template <class T>
struct Distortion {
    CameraModel model = CameraModel::pinhole;
    T k[8] = {};
};

template <class T>
Distortion<T> distortion_of(const Camera& c) {
    Distortion<T> d;
    d.model = c.model;
    for (std::size_t i = 0; i < c.distortion.size() && i < 8; ++i) d.k[i] = T(c.distortion[i]);
    return d;
}

template <class T>
RADIANT_HD Vec2<T> distort(const Distortion<T>& d, Vec2<T> p) {
    if (d.model == CameraModel::pinhole) return p;
    const T x = p.x, y = p.y, r2 = x * x + y * y;
    if (d.model == CameraModel::opencv) {
        const T num = T(1) + r2 * (d.k[0] + r2 * (d.k[1] + r2 * d.k[4]));
        const T den = T(1) + r2 * (d.k[5] + r2 * (d.k[6] + r2 * d.k[7]));
        const T radial = num / den;
        return {x * radial + T(2) * d.k[2] * x * y + d.k[3] * (r2 + T(2) * x * x),
                y * radial + d.k[2] * (r2 + T(2) * y * y) + T(2) * d.k[3] * x * y};
    }
    const T r = std::sqrt(r2);
    if (r < T(1e-12)) return p;
    const T th = std::atan(r), t2 = th * th;
    const T thd = th * (T(1) + t2 * (d.k[0] + t2 * (d.k[1] + t2 * (d.k[2] + t2 * d.k[3]))));
    return {thd / r * x, thd / r * y};
}

// Jacobian of distort at p: rows (∂xd/∂x, ∂xd/∂y), (∂yd/∂x, ∂yd/∂y), by central differences in T. Used only
// by the Newton solve, whose fixed point does not depend on the Jacobian's accuracy.
template <class T>
RADIANT_HD void distort_jacobian(const Distortion<T>& d, Vec2<T> p, T j[2][2]) {
    const T h = T(1e-6) * (T(1) + std::abs(p.x) + std::abs(p.y));
    for (int a = 0; a < 2; ++a) {
        Vec2<T> lo = p, hi = p;
        lo[a] -= h;
        hi[a] += h;
        const Vec2<T> dlo = distort(d, lo), dhi = distort(d, hi);
        j[0][a] = (dhi.x - dlo.x) / (T(2) * h);
        j[1][a] = (dhi.y - dlo.y) / (T(2) * h);
    }
}

// Inverse of distort by Newton iteration from pd; false when it does not converge (outside the model's
// valid region).
template <class T>
RADIANT_HD bool undistort(const Distortion<T>& d, Vec2<T> pd, Vec2<T>& p) {
    p = pd;
    if (d.model == CameraModel::pinhole) return true;
    for (int it = 0; it < 50; ++it) {
        const Vec2<T> f = distort(d, p) - pd;
        if (std::abs(f.x) + std::abs(f.y) < T(1e-12)) return true;
        T j[2][2];
        distort_jacobian(d, p, j);
        const T det = j[0][0] * j[1][1] - j[0][1] * j[1][0];
        if (!(std::abs(det) > T(1e-12))) return false;
        p.x -= (j[1][1] * f.x - j[0][1] * f.y) / det;
        p.y -= (-j[1][0] * f.x + j[0][0] * f.y) / det;
        if (!std::isfinite(p.x) || !std::isfinite(p.y)) return false;
    }
    const Vec2<T> f = distort(d, p) - pd;
    return std::abs(f.x) + std::abs(f.y) < T(1e-8);
}

}  // namespace radiant
