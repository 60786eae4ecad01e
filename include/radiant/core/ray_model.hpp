#pragma once
// The `ray` shading model (DESIGN.md §2, issue 8): a Gaussian's maximum response along a pixel's ray. In the
// Gaussian's whitened frame L = S⁻¹Rᵀ the ray is o_l + t·d_l with o_l = L(origin − μ), d_l = L·dir; the
// response peaks at t* = −(o_l·d_l)/|d_l|², at the point c = o_l + t*·d_l, with α = o·exp(−½|c|²) (0 when
// t* ≤ 0: the peak is behind the camera). Written once for the CPU reference and the CUDA kernels.
#include <cmath>

#include "radiant/core/distortion.hpp"
#include "radiant/core/hd.hpp"
#include "radiant/core/quat.hpp"
#include "radiant/core/vec.hpp"

namespace radiant {

template <class T>
struct RayResponse {
    T alpha = 0;    // o·exp(−½|c|²), before any cap or cutoff
    T falloff = 0;  // exp(−½|c|²)
    T t_star = 0;   // ray parameter of the peak (dir need not be unit: in units of |dir|)
    Vec3<T> c{};    // whitened closest-approach point
    bool in_front = false;
};

// L = S⁻¹Rᵀ: row i is column i of R divided by scale i.
template <class T>
RADIANT_HD Mat3<T> whitening(Vec3<T> log_scale, Vec4<T> quat) {
    const Mat3<T> r = quat_to_rotmat(quat);
    const T inv[3] = {std::exp(-log_scale.x), std::exp(-log_scale.y), std::exp(-log_scale.z)};
    Mat3<T> l;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) l.m[i][j] = inv[i] * r.m[j][i];
    return l;
}

// The ray model's anti-aliasing floor, the counterpart of `ewa`'s eps2d low-pass: the same variance (eps2d
// px²), in world units at the Gaussian's camera depth, added to each of its axes — s_i'² = s_i² + v with
// v = eps2d·depth²/(fx·fy). An isotropic term commutes with the rotation, so the filtered Gaussian keeps R
// and only its scales grow. Without it nothing stops Gaussians from shrinking below a pixel, where a ray
// meets them or misses them: their position gradients grow as 1/size, every such Gaussian passes ADC's
// threshold, and clones of them clone again (fox, 540×960: 0.6M → 16.7M Gaussians between steps 7.5k and
// 10.5k). eps2d = 0 is DESIGN.md §2's unfiltered model.
template <class T>
RADIANT_HD T ray_filter_variance(T depth, T eps2d, T fx, T fy) {
    return eps2d * depth * depth / (fx * fy);
}

template <class T>
RADIANT_HD Vec3<T> filtered_log_scale(Vec3<T> log_scale, T v) {
    if (!(v > T(0))) return log_scale;
    return {T(0.5) * std::log(std::exp(T(2) * log_scale.x) + v),
            T(0.5) * std::log(std::exp(T(2) * log_scale.y) + v),
            T(0.5) * std::log(std::exp(T(2) * log_scale.z) + v)};
}

// ∂/∂log_scale from ∂/∂(filtered log-scale); adds ∂/∂v into v_v.
template <class T>
RADIANT_HD Vec3<T> filtered_log_scale_vjp(Vec3<T> log_scale, T v, Vec3<T> v_filtered, T& v_v) {
    if (!(v > T(0))) return v_filtered;
    Vec3<T> out;
    for (int i = 0; i < 3; ++i) {
        const T s2 = std::exp(T(2) * log_scale[i]), inv = T(1) / (s2 + v);
        out[i] = v_filtered[i] * s2 * inv;
        v_v += T(0.5) * v_filtered[i] * inv;
    }
    return out;
}

template <class T>
RADIANT_HD RayResponse<T> ray_response(const Mat3<T>& l, Vec3<T> mean, T opacity, Vec3<T> origin,
                                       Vec3<T> dir) {
    RayResponse<T> h;
    const Vec3<T> o_l = l * (origin - mean), d_l = l * dir;
    const T dd = dot(d_l, d_l);
    if (!(dd > T(0))) return h;
    h.t_star = -dot(o_l, d_l) / dd;
    if (!(h.t_star > T(0))) return h;
    h.in_front = true;
    h.c = o_l + h.t_star * d_l;
    h.falloff = std::exp(T(-0.5) * dot(h.c, h.c));
    h.alpha = opacity * h.falloff;
    return h;
}

template <class T>
struct RayResponseGrads {
    Vec3<T> v_mean{}, v_log_scale{};
    Vec4<T> v_quat{};
    T v_opacity = 0;  // ∂/∂opacity (not its logit)
};

// ∂/∂(log-scale, quaternion) from ∂/∂L of the whitening L = whitening(log_scale, quat); L_ij = s_i⁻¹ R_ji.
template <class T>
RADIANT_HD void whitening_vjp(Vec3<T> log_scale, Vec4<T> quat, const Mat3<T>& l, const Mat3<T>& v_l,
                              Vec3<T>& v_log_scale, Vec4<T>& v_quat) {
    const T inv[3] = {std::exp(-log_scale.x), std::exp(-log_scale.y), std::exp(-log_scale.z)};
    Mat3<T> v_r;
    T v_ls[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            v_ls[i] -= v_l.m[i][j] * l.m[i][j];
            v_r.m[j][i] = v_l.m[i][j] * inv[i];
        }
    v_log_scale = {v_ls[0], v_ls[1], v_ls[2]};
    v_quat = quat_to_rotmat_vjp(quat, v_r);
}

// ∂/∂(mean, log-scale, quaternion, opacity) from v_alpha = ∂loss/∂α for a hit in front. t* drops out
// (envelope theorem): ∂α/∂o_l = −α·c, ∂α/∂d_l = −α·t*·c.
template <class T>
RADIANT_HD RayResponseGrads<T> ray_response_vjp(Vec3<T> mean, Vec3<T> log_scale, Vec4<T> quat, Vec3<T> origin,
                                                Vec3<T> dir, const RayResponse<T>& h, T v_alpha) {
    RayResponseGrads<T> g;
    if (!h.in_front) return g;
    g.v_opacity = v_alpha * h.falloff;
    const Mat3<T> l = whitening(log_scale, quat);
    const Vec3<T> v_ol = (-v_alpha * h.alpha) * h.c, v_dl = (-v_alpha * h.alpha * h.t_star) * h.c;
    const Vec3<T> u = origin - mean;
    g.v_mean = T(-1) * (transpose(l) * v_ol);
    // ∂/∂L = v_ol uᵀ + v_dl dirᵀ.
    Mat3<T> v_l;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) v_l.m[i][j] = v_ol[i] * u[j] + v_dl[i] * dir[j];
    whitening_vjp(log_scale, quat, l, v_l, g.v_log_scale, g.v_quat);
    return g;
}

// The ray model's stand-in for `ewa`'s screen-space mean gradient (the densification statistic): the
// gradient with respect to moving the camera-frame mean m across the image at its depth, in pixels —
// ∂x_pixel/∂m_x = fx / m_z, so ∂L/∂x_pixel = (m_z / fx)·∂L/∂m_x (likewise y).
template <class T>
RADIANT_HD Vec2<T> ray_mean2d_grad(Vec3<T> mean_cam, Vec3<T> v_mean_cam, T fx, T fy) {
    return {v_mean_cam.x * mean_cam.z / fx, v_mean_cam.y * mean_cam.z / fy};
}

// Where in the image plane (normalised coordinates x = X/Z, y = Y/Z, before any lens distortion) a Gaussian
// can reach α ≥ cutoff under the ray model: the exact bounding box of the perspective silhouette of its
// iso-ellipsoid |L(x − μ)|² ≤ 2 ln(o / cutoff). In camera coordinates (mean m, shape M = R Σ Rᵀ · r²) the
// image line x = u is tangent where (m_x − u m_z)² = M_xx − 2u M_xz + u² M_zz, a quadratic in u; likewise y.
enum class Silhouette { culled, bounded, unbounded };
template <class T>
struct SilhouetteBounds {
    Silhouette kind = Silhouette::culled;
    T x0 = 0, x1 = 0, y0 = 0, y1 = 0;
};

// mean_cam = R_wc μ + t; cov_cam = R_wc Σ R_wcᵀ (Σ = R S² Rᵀ of the Gaussian).
template <class T>
RADIANT_HD SilhouetteBounds<T> ray_silhouette(Vec3<T> mean_cam, const Mat3<T>& cov_cam, T opacity, T cutoff) {
    SilhouetteBounds<T> b;
    if (!(opacity > cutoff)) return b;  // never reaches the cutoff
    const T r2 = T(2) * std::log(opacity / cutoff);
    const T mzz = cov_cam.m[2][2] * r2;
    const T a = mean_cam.z * mean_cam.z - mzz;
    if (!(a > T(0))) {
        b.kind = Silhouette::unbounded;  // the iso-ellipsoid reaches the camera plane
        return b;
    }
    if (mean_cam.z < T(0)) return b;  // wholly behind the camera: every peak has t* < 0
    auto roots = [&](T m, T mxz, T mxx, T& lo, T& hi) {
        const T half_b = m * mean_cam.z - mxz * r2, c = m * m - mxx * r2;
        const T disc = half_b * half_b - a * c;
        const T s = std::sqrt(disc > T(0) ? disc : T(0));
        lo = (half_b - s) / a;
        hi = (half_b + s) / a;
    };
    roots(mean_cam.x, cov_cam.m[0][2], cov_cam.m[0][0], b.x0, b.x1);
    roots(mean_cam.y, cov_cam.m[1][2], cov_cam.m[1][1], b.y0, b.y1);
    b.kind = Silhouette::bounded;
    return b;
}

// The ray model's screen radius in pixels (ADC's screen-size prune): half the silhouette's larger extent,
// at least 1 for a visible Gaussian; an unbounded silhouette counts as the whole image.
template <class T>
RADIANT_HD int ray_screen_radius(const SilhouetteBounds<T>& b, T fx, T fy, int width, int height) {
    if (b.kind == Silhouette::culled) return 0;
    const T whole = T(width > height ? width : height);
    if (b.kind == Silhouette::unbounded) return int(whole);
    T r = T(0.5) * ((b.x1 - b.x0) * fx > (b.y1 - b.y0) * fy ? (b.x1 - b.x0) * fx : (b.y1 - b.y0) * fy);
    r = r < whole ? r : whole;
    return r > T(1) ? int(std::ceil(r)) : 1;
}

// Direction (camera frame, z = 1) of the ray through pixel (px, py) — pixel centres at +0.5 — through the
// full lens model: the distorted normalised point is undistorted by Newton iteration. False where the model
// cannot be inverted (outside its valid region): such a pixel gets no ray.
template <class T>
RADIANT_HD bool camera_ray(T fx, T fy, T cx, T cy, const Distortion<T>& d, T px, T py, Vec3<T>& dir) {
    const Vec2<T> pd{(px + T(0.5) - cx) / fx, (py + T(0.5) - cy) / fy};
    Vec2<T> p;
    if (!undistort(d, pd, p)) return false;
    dir = {p.x, p.y, T(1)};
    return true;
}

}  // namespace radiant
