#pragma once
// One Gaussian's projection for the `ewa` model and its VJP, written once for the CPU reference and the
// CUDA kernels (DESIGN.md §1.1, §1.7): cull, covariance, EWA footprint, opacity-aware extent, tile bounds,
// view-dependent colour.
#include <cmath>

#include "radiant/core/camera_grad.hpp"
#include "radiant/core/covariance.hpp"
#include "radiant/core/ewa.hpp"
#include "radiant/core/scene.hpp"
#include "radiant/core/sh.hpp"
#include "radiant/core/tiles.hpp"

namespace radiant {

template <class T>
struct GaussianParams {
    Vec3<T> mean, log_scale;
    Vec4<T> quat;
    T opacity_logit;
    const T* sh;  // [K, 3] of this Gaussian (K = the scene's coefficient count)
};

template <class T>
struct ProjectSettings {
    PinholeParams<T> cam;
    Vec3<T> centre;  // camera centre in the world
    T near_plane, far_plane, eps2d, alpha_cutoff, radius_scale, max_anisotropy;
    int sh_degree;  // active degree, at most the scene's
    int tile_size;
    bool antialiased;  // opacity × aa_compensation (core/ewa.hpp)
};

template <class T>
struct Footprint {
    Vec2<T> mean2d;
    Sym2<T> conic;
    T depth, opacity, extent_sq;
    Vec3<T> colour;
    TileRect rect;
    int radius;
};

// ∂L/∂(the footprint quantities the raster reads).
template <class T>
struct FootprintGrads {
    Vec2<T> v_mean2d;
    Sym2<T> v_conic;
    Vec3<T> v_colour;
    T v_opacity;
};

// ∂L/∂(one Gaussian's parameters); v_sh is written by the caller's pointer.
template <class T>
struct GaussianGrads {
    Vec3<T> v_mean, v_log_scale;
    Vec4<T> v_quat;
    T v_opacity_logit;
};

// The footprint but its colour; false when the Gaussian is culled (outside near/far, degenerate footprint,
// never reaching the cutoff, no pixel centre inside its box, or a non-finite parameter). Reads no SH, so a
// kernel loads a Gaussian's SH (most of its bytes) only when it is kept.
template <class T>
RADIANT_HD bool project_ewa_footprint(const GaussianParams<T>& g, const ProjectSettings<T>& s,
                                      Footprint<T>& f) {
    const Vec3<T> p = world_to_camera(s.cam, g.mean);
    if (!(p.z >= s.near_plane && p.z <= s.far_plane)) return false;
    const Vec3<T> log_scale = clamp_anisotropy(g.log_scale, s.max_anisotropy);
    const Mat3<T> cov_cam = s.cam.R * covariance(log_scale, g.quat) * transpose(s.cam.R);
    const Sym2<T> cov2d = ewa_cov2d(s.cam, p, cov_cam, s.eps2d);
    if (!inverse(cov2d, f.conic)) return false;
    f.opacity = sigmoid(g.opacity_logit);
    if (s.antialiased) f.opacity *= aa_compensation(cov2d, s.eps2d);
    f.extent_sq = footprint_extent_sq(f.opacity, s.alpha_cutoff, s.radius_scale);
    if (!(f.extent_sq > T(0))) return false;
    f.mean2d = project_pinhole(s.cam, p);
    f.rect = footprint_tile_bounds(f.mean2d, cov2d, f.extent_sq, s.cam.width, s.cam.height, s.tile_size);
    if (f.rect.empty()) return false;
    f.depth = p.z;
    const T r = std::ceil(std::sqrt(f.extent_sq * (cov2d.a > cov2d.c ? cov2d.a : cov2d.c)));
    f.radius = r < T(1) ? 1 : int(r);
    return true;
}

// The footprint's colour, seen from the camera centre (s.centre, s.sh_degree); false when it is not finite.
// NaN means, scales, rotations and opacities fail the footprint's tests; NaN or infinite SH would reach only
// the colour, and one such Gaussian would turn the image NaN. It is not drawn; the trainer removes it.
// F: either model's footprint (Footprint, RayFootprint), both with a Vec3<T> colour.
template <class T, class F>
RADIANT_HD bool footprint_colour(const GaussianParams<T>& g, const ProjectSettings<T>& s, F& f) {
    f.colour = sh_to_colour(s.sh_degree, g.sh, normalize(g.mean - s.centre));
    return std::isfinite(f.colour.x) && std::isfinite(f.colour.y) && std::isfinite(f.colour.z);
}

// False when the Gaussian is culled: project_ewa_footprint, then footprint_colour.
template <class T>
RADIANT_HD bool project_ewa_gaussian(const GaussianParams<T>& g, const ProjectSettings<T>& s,
                                     Footprint<T>& f) {
    return project_ewa_footprint(g, s, f) && footprint_colour(g, s, f);
}

// The chain rule from the footprint back to the parameters; v_sh ([K, 3], this Gaussian's) is added into.
// With v_cam, also this Gaussian's share of the gradient with respect to the camera's pose
// (core/camera_grad.hpp); with sh_source, what v_sh is made of (core/sh.hpp).
template <class T>
RADIANT_HD GaussianGrads<T> project_ewa_gaussian_vjp(const GaussianParams<T>& g, const ProjectSettings<T>& s,
                                                     const Footprint<T>& f, const FootprintGrads<T>& v,
                                                     T* v_sh, CameraGrads<T>* v_cam = nullptr,
                                                     ShGradSource<T>* sh_source = nullptr) {
    const Mat3<T> wt = transpose(s.cam.R);
    const Vec3<T> log_scale = clamp_anisotropy(g.log_scale, s.max_anisotropy);
    const Vec3<T> p = world_to_camera(s.cam, g.mean);
    const Mat3<T> cov_cam = s.cam.R * covariance(log_scale, g.quat) * wt;

    // opacity = sigmoid(logit) (× the anti-aliasing compensation of the 2D covariance)
    const T sig = sigmoid(g.opacity_logit);
    T compensation = T(1);
    // conic → 2D covariance → camera-frame covariance and point
    Sym2<T> v_cov2d = inverse_vjp(f.conic, v.v_conic);
    if (s.antialiased) {
        const Sym2<T> cov2d = ewa_cov2d(s.cam, p, cov_cam, s.eps2d);
        compensation = aa_compensation(cov2d, s.eps2d);
        const Sym2<T> v_aa = aa_compensation_vjp(cov2d, s.eps2d, v.v_opacity * sig);
        v_cov2d = {v_cov2d.a + v_aa.a, v_cov2d.b + v_aa.b, v_cov2d.c + v_aa.c};
    }
    Mat3<T> v_cov_cam;
    Vec3<T> v_p{};
    ewa_cov2d_vjp(s.cam, p, cov_cam, v_cov2d, v_cov_cam, v_p);
    v_p += project_pinhole_vjp(s.cam, p, v.v_mean2d);

    // camera frame → world: p = W μ + t, Σ_cam = W Σ Wᵀ
    GaussianGrads<T> out{};
    out.v_mean = wt * v_p;
    const Mat3<T> v_cov = wt * v_cov_cam * s.cam.R;
    covariance_vjp(log_scale, g.quat, v_cov, out.v_log_scale, out.v_quat);
    out.v_log_scale = clamp_anisotropy_vjp(g.log_scale, s.max_anisotropy, out.v_log_scale);

    // colour = SH(normalize(μ − camera centre))
    const Vec3<T> view = g.mean - s.centre;
    const Vec3<T> v_dir = sh_to_colour_vjp(s.sh_degree, g.sh, normalize(view), v.v_colour, v_sh, sh_source);
    const Vec3<T> v_view = normalize_vjp(view, v_dir);
    out.v_mean += v_view;
    out.v_opacity_logit = v.v_opacity * compensation * sig * (T(1) - sig);
    if (v_cam) {
        *v_cam = point_camera_grads(p, v_p);
        v_cam->v_rot += covariance_rot_grad(cov_cam, v_cov_cam);
        v_cam->v_trans += centre_trans_grad(s.cam.R, v_view);
    }
    return out;
}

// Calls visit(tile_id) for every tile of f.rect whose pixel centres the footprint reaches, row by row.
template <class T, class Visit>
RADIANT_HD int for_each_touched_tile(const Footprint<T>& f, int tile_size, int tiles_x, int width, int height,
                                     Visit visit) {
    int n = 0;
    for (int ty = f.rect.y0; ty < f.rect.y1; ++ty)
        for (int tx = f.rect.x0; tx < f.rect.x1; ++tx)
            if (footprint_touches_tile(f.mean2d, f.conic, f.extent_sq, tx, ty, tile_size, width, height)) {
                visit(ty * tiles_x + tx);
                ++n;
            }
    return n;
}

}  // namespace radiant

#include "radiant/core/render_settings.hpp"

namespace radiant {

// Host-side: the projection settings of a camera and render settings for a scene of `scene_degree`.
template <class T>
ProjectSettings<T> project_settings(const Camera& camera, const RenderSettings& s, int scene_degree) {
    ProjectSettings<T> p;
    p.cam = pinhole_params<T>(camera);
    p.centre = cast<T>(camera.centre());
    p.near_plane = T(s.near_plane);
    p.far_plane = T(s.far_plane);
    p.eps2d = T(s.eps2d);
    p.alpha_cutoff = T(s.alpha_cutoff);
    p.radius_scale = T(s.radius_scale);
    p.max_anisotropy = T(s.max_anisotropy);
    p.sh_degree = s.sh_degree < scene_degree ? s.sh_degree : scene_degree;
    p.tile_size = s.tile_size;
    p.antialiased = s.antialiased;
    return p;
}

template <class T>
GaussianParams<T> gaussian_params(const SceneT<T>& s, std::size_t i) {
    return {s.mean(i), s.log_scale(i), s.quat(i), s.opacity_logits[i], s.sh_of(i)};
}

}  // namespace radiant
