#pragma once
// One Gaussian's projection for the `ray` model, its tiles, and its VJP from the raster's per-hit sums,
// written once for the CPU reference and the CUDA kernels (issue 8). The per-pixel response lives in
// ray_model.hpp; here: cull, camera-frame mean and whitening, silhouette, screen radius, colour.
#include <cmath>

#include "radiant/core/covariance.hpp"
#include "radiant/core/project.hpp"
#include "radiant/core/ray_model.hpp"

namespace radiant {

template <class T>
struct RayFootprint {
    Vec3<T> mean_cam;       // m = R_wc μ + t
    Mat3<T> whitening_cam;  // L_c = L R_wcᵀ: a camera-frame ray o + t·d has o_l = L_c(o − m), d_l = L_c·d
    T opacity, depth;
    Vec3<T> colour;
    SilhouetteBounds<T> bounds;  // undistorted image plane (normalised coordinates)
    int radius;                  // ray_screen_radius
};

template <class T>
RADIANT_HD bool all_finite(const Mat3<T>& m) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (!std::isfinite(m.m[i][j])) return false;
    return true;
}

// The footprint but its colour; false when culled: outside the open (near, far) range, never reaching the
// cutoff, or a non-finite parameter (the trainer removes such Gaussians; until then they are not drawn). Uses
// s.cam's R, t, fx, fy, width and height, the planes, alpha_cutoff and eps2d (as ray_filter_variance; no
// anisotropy clamp). Reads no SH, so a kernel loads a Gaussian's SH only when it is kept.
template <class T>
RADIANT_HD bool project_ray_footprint(const GaussianParams<T>& g, const ProjectSettings<T>& s,
                                      RayFootprint<T>& f) {
    const Vec3<T> m = world_to_camera(s.cam, g.mean);
    if (!(m.z > s.near_plane && m.z < s.far_plane)) return false;
    f.opacity = sigmoid(g.opacity_logit);
    const Mat3<T> wt = transpose(s.cam.R);
    const Vec3<T> log_scale =
        filtered_log_scale(g.log_scale, ray_filter_variance(m.z, s.eps2d, s.cam.fx, s.cam.fy));
    const Mat3<T> cov_cam = s.cam.R * covariance(log_scale, g.quat) * wt;
    if (!all_finite(cov_cam)) return false;
    f.bounds = ray_silhouette(m, cov_cam, f.opacity, s.alpha_cutoff);
    if (f.bounds.kind == Silhouette::culled) return false;
    f.whitening_cam = whitening(log_scale, g.quat) * wt;
    if (!all_finite(f.whitening_cam)) return false;
    f.mean_cam = m;
    f.depth = m.z;
    f.radius = ray_screen_radius(f.bounds, s.cam.fx, s.cam.fy, s.cam.width, s.cam.height);
    return true;
}

// False when culled: project_ray_footprint, then footprint_colour (core/project.hpp).
template <class T>
RADIANT_HD bool project_ray_gaussian(const GaussianParams<T>& g, const ProjectSettings<T>& s,
                                     RayFootprint<T>& f) {
    return project_ray_footprint(g, s, f) && footprint_colour(g, s, f);
}

// The first and one-past-last index i of `ranges` ([n, 2]: lo, hi) with [lo_i, hi_i] meeting [a, b]; a
// contiguous superset even where the ranges are not monotonic (strong distortion).
template <class T>
RADIANT_HD void overlapping_range(const T* ranges, int n, T a, T b, int& first, int& end) {
    first = 0;
    end = 0;
    for (int i = 0; i < n; ++i)
        if (ranges[2 * i] <= b && ranges[2 * i + 1] >= a) {
            if (end == 0) first = i;
            end = i + 1;
        }
}

// The rect of tiles whose column and row bounds meet the silhouette (unbounded: every tile).
template <class T>
RADIANT_HD TileRect ray_tile_rect(const SilhouetteBounds<T>& b, const T* col_bounds, int tiles_x,
                                  const T* row_bounds, int tiles_y) {
    TileRect r{0, 0, tiles_x, tiles_y};
    if (b.kind != Silhouette::bounded) return r;
    overlapping_range(col_bounds, tiles_x, b.x0, b.x1, r.x0, r.x1);
    overlapping_range(row_bounds, tiles_y, b.y0, b.y1, r.y0, r.y1);
    return r;
}

// Calls visit(tile_id) for each tile of `rect` whose own bounds (tile_bounds [tiles, 4]: x0 x1 y0 y1 over
// its pixels' undistorted ray directions) meet the silhouette, row by row; returns how many.
template <class T, class Visit>
RADIANT_HD int for_each_ray_tile(const SilhouetteBounds<T>& b, const TileRect& rect, const T* tile_bounds,
                                 int tiles_x, Visit visit) {
    int n = 0;
    for (int ty = rect.y0; ty < rect.y1; ++ty)
        for (int tx = rect.x0; tx < rect.x1; ++tx) {
            const int tile = ty * tiles_x + tx;
            const T* tb = tile_bounds + 4 * tile;
            if (b.kind == Silhouette::bounded &&
                (tb[0] > b.x1 || tb[1] < b.x0 || tb[2] > b.y1 || tb[3] < b.y0))
                continue;
            visit(tile);
            ++n;
        }
    return n;
}

// What the raster backward sums per Gaussian over its hits, in the camera frame: ∂L/∂o_l, ∂L/∂d_l·dirᵀ
// (so ∂L/∂L_c = v_ol·(−m)ᵀ + v_dl_dir), and the colour and opacity gradients.
template <class T>
struct RayHitSums {
    Vec3<T> v_ol{};
    Mat3<T> v_dl_dir{};
    Vec3<T> v_colour{};
    T v_opacity = 0;  // ∂/∂opacity (not its logit)
};

template <class T>
RADIANT_HD RayHitSums<T>& operator+=(RayHitSums<T>& a, const RayHitSums<T>& b) {
    a.v_ol += b.v_ol;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.v_dl_dir.m[i][j] += b.v_dl_dir.m[i][j];
    a.v_colour += b.v_colour;
    a.v_opacity += b.v_opacity;
    return a;
}

// RayHitSums as a flat array, the GPU's per-Gaussian accumulators: v_ol (3), v_dl_dir (9, row-major),
// v_colour (3), v_opacity (1).
constexpr int kRayHitSumsSize = 16;
template <class T>
RADIANT_HD void store_ray_hit_sums(const RayHitSums<T>& s, T* out) {
    for (int i = 0; i < 3; ++i) {
        out[i] = s.v_ol[i];
        for (int j = 0; j < 3; ++j) out[3 + 3 * i + j] = s.v_dl_dir.m[i][j];
        out[12 + i] = s.v_colour[i];
    }
    out[15] = s.v_opacity;
}
template <class T>
RADIANT_HD RayHitSums<T> load_ray_hit_sums(const T* in) {
    RayHitSums<T> s;
    for (int i = 0; i < 3; ++i) {
        s.v_ol[i] = in[i];
        for (int j = 0; j < 3; ++j) s.v_dl_dir.m[i][j] = in[3 + 3 * i + j];
        s.v_colour[i] = in[12 + i];
    }
    s.v_opacity = in[15];
    return s;
}

// One hit's share, from v_alpha = ∂L/∂α of the response h of the ray along `dir` (camera frame).
template <class T>
RADIANT_HD void add_ray_hit(const RayResponse<T>& h, Vec3<T> dir, T v_alpha, RayHitSums<T>& s) {
    if (!h.in_front) return;
    s.v_opacity += v_alpha * h.falloff;
    const Vec3<T> v_ol = (-v_alpha * h.alpha) * h.c, v_dl = (-v_alpha * h.alpha * h.t_star) * h.c;
    s.v_ol += v_ol;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) s.v_dl_dir.m[i][j] += v_dl[i] * dir[j];
}

// The chain rule from a Gaussian's hit sums to its parameters (through the anti-aliasing filter too); v_sh
// ([K, 3]) is added into (with sh_source, what it is made of: core/sh.hpp). v_mean_cam gets ∂L/∂m through
// the whitened ray alone, not the filter's depth term (the densification statistic's input,
// ray_mean2d_grad, reads only its x and y).
template <class T>
RADIANT_HD GaussianGrads<T> project_ray_gaussian_vjp(const GaussianParams<T>& g, const ProjectSettings<T>& s,
                                                     const RayHitSums<T>& v, T* v_sh, Vec3<T>& v_mean_cam,
                                                     CameraGrads<T>* v_cam = nullptr,
                                                     ShGradSource<T>* sh_source = nullptr) {
    const Vec3<T> m = world_to_camera(s.cam, g.mean);
    const T var = ray_filter_variance(m.z, s.eps2d, s.cam.fx, s.cam.fy);
    const Vec3<T> log_scale = filtered_log_scale(g.log_scale, var);
    const Mat3<T> l = whitening(log_scale, g.quat);
    const Mat3<T> l_cam = l * transpose(s.cam.R);
    // o_l = L_c(0 − m): ∂/∂m = −L_cᵀ v_ol; ∂/∂L_c = v_ol (−m)ᵀ + Σ v_dl dirᵀ; L_c = L R_wcᵀ: ∂/∂L = (∂/∂L_c)
    // R_wc
    v_mean_cam = T(-1) * (transpose(l_cam) * v.v_ol);
    Mat3<T> v_l_cam = v.v_dl_dir;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) v_l_cam.m[i][j] -= v.v_ol[i] * m[j];
    GaussianGrads<T> out{};
    Vec3<T> v_filtered;
    whitening_vjp(log_scale, g.quat, l, v_l_cam * s.cam.R, v_filtered, out.v_quat);
    T v_v = 0;
    out.v_log_scale = filtered_log_scale_vjp(g.log_scale, var, v_filtered, v_v);
    // The filter's variance grows with the depth m_z: ∂v/∂m_z = 2 v / m_z.
    const Vec3<T> v_m_filter{T(0), T(0), var > T(0) ? v_v * T(2) * var / m.z : T(0)};
    out.v_mean = transpose(s.cam.R) * (v_mean_cam + v_m_filter);
    const Vec3<T> view = g.mean - s.centre;
    const Vec3<T> v_dir = sh_to_colour_vjp(s.sh_degree, g.sh, normalize(view), v.v_colour, v_sh, sh_source);
    const Vec3<T> v_view = normalize_vjp(view, v_dir);
    out.v_mean += v_view;
    const T o = sigmoid(g.opacity_logit);
    out.v_opacity_logit = v.v_opacity * o * (T(1) - o);
    if (v_cam) {
        // The pixels' rays are fixed in the camera frame; the Gaussian's centre and whitening move with it.
        *v_cam = point_camera_grads(m, v_mean_cam + v_m_filter);
        v_cam->v_rot += right_frame_rot_grad(l_cam, v_l_cam);
        v_cam->v_trans += centre_trans_grad(s.cam.R, v_view);
    }
    return out;
}

}  // namespace radiant
