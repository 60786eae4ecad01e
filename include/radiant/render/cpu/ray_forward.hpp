#pragma once
// The CPU reference forward for the `ray` shading model (issue 8, DESIGN.md §2): per-pixel rays through the
// full lens model (no undistortion of the image), α from each Gaussian's peak along the ray, binned by the
// exact silhouette of its α = alpha_cutoff iso-ellipsoid, composited front to back like `ewa`.
#include <vector>

#include "radiant/core/camera.hpp"
#include "radiant/core/image.hpp"
#include "radiant/core/ray_model.hpp"
#include "radiant/core/ray_project.hpp"
#include "radiant/core/render_settings.hpp"
#include "radiant/core/scene.hpp"
#include "radiant/core/vec.hpp"
#include "radiant/render/forward.hpp"
#include "radiant/render/grads.hpp"

namespace radiant::cpu {

// Per camera: each pixel's ray direction (camera frame, z = 1; valid = false where the lens model cannot be
// inverted) and each tile's bounds in the undistorted image plane over all of its pixel centres — so a tile
// is tested against a silhouette conservatively whatever the distortion.
template <class T>
struct RayCamera {
    std::vector<Vec3<T>> dirs;        // [H·W]
    std::vector<std::uint8_t> valid;  // [H·W]
    std::vector<T> tile_bounds;       // [tiles, 4]: x0 x1 y0 y1 (x0 > x1: no valid pixel)
    std::vector<T> col_bounds,
        row_bounds;  // [tiles_x, 2] x range of a tile column, [tiles_y, 2] y range of a row
};
template <class T>
RayCamera<T> ray_camera(const Camera& camera, const TileGrid& grid);

// Per Gaussian, besides Projected's depth, opacity, colour and tile rect: its camera-frame mean and
// whitening.
template <class T>
struct RayProjected {
    std::vector<Vec3<T>> means;               // camera frame
    std::vector<Mat3<T>> whitening;           // camera frame: o_l = L(0 − m), d_l = L·dir
    std::vector<SilhouetteBounds<T>> bounds;  // undistorted image plane
};

template <class T>
void project_ray(const SceneT<T>& scene, const Camera& camera, const RenderSettings& settings,
                 const RayCamera<T>& rays, const TileGrid& grid, Projected<T>& out, RayProjected<T>& ray);

// List the (tile, Gaussian) pairs: every tile of each rect whose undistorted bounds meet the silhouette,
// sorted by (tile, depth), ties in Gaussian order.
template <class T>
void bin_ray(const Projected<T>& projected, const RayProjected<T>& ray, const RayCamera<T>& rays,
             const TileGrid& grid, TileLists& lists);

// Front to back over out.lists on out.grid, α from each Gaussian's peak along the pixel's ray.
template <class T>
void raster_ray(const Projected<T>& projected, const RayProjected<T>& ray, const RayCamera<T>& rays,
                const RenderSettings& settings, ForwardResult<T>& out);

// validate, rays, project, bin, raster. out.trace as for `ewa`.
template <class T>
ForwardResult<T> render_forward_ray(const SceneT<T>& scene, const Camera& camera,
                                    const RenderSettings& settings);

// The ray model's backward from the forward's lists (replay: each pixel's hits re-walked, no re-render):
// DESIGN.md §2's compositing gradient, each hit's camera-frame share summed per Gaussian (RayHitSums), then
// the chain to the 3D parameters and through the SH colour (project_ray_gaussian_vjp) — the CUDA kernels'
// structure, in T. v_rgb is ∂L/∂C [H, W, 3]; loss_grad_clip applies as for `ewa`.
// mean2d_grad_norms: the gradient of moving each camera-frame mean across the image (ray_mean2d_grad), in
// `ewa`'s units, so ADC's thresholds keep their meaning.
// The raster half of render_backward_ray: each projected Gaussian's camera-frame sums [projected.size()].
template <class T>
std::vector<RayHitSums<T>> raster_bwd_ray(const ForwardResult<T>& fwd, const RayProjected<T>& ray,
                                          const RayCamera<T>& rays, const Image<T>& v_rgb,
                                          const RenderSettings& settings);

// The projection half: from those sums to every parameter of the scene that was projected.
template <class T>
void project_ray_bwd(const SceneT<T>& scene, const Camera& camera, const RenderSettings& settings,
                     const Projected<T>& projected, const RayProjected<T>& ray,
                     const std::vector<RayHitSums<T>>& sums, SceneGradsT<T>& out);

template <class T>
SceneGradsT<T> render_backward_ray(const SceneT<T>& scene, const Camera& camera,
                                   const RenderSettings& settings, const ForwardResult<T>& fwd,
                                   const Image<T>& v_rgb);

}  // namespace radiant::cpu
