#pragma once
// The CPU reference renderer (OpenMP), instantiated for float and double. Each stage is a function of its
// own so tests can check it alone and the CUDA stages can be compared with it one by one.
#include "radiant/core/camera.hpp"
#include "radiant/core/render_settings.hpp"
#include "radiant/core/scene.hpp"
#include "radiant/render/forward.hpp"

namespace radiant::cpu {

// Project every Gaussian (cull, 2D footprint, view-dependent colour at the active SH degree).
template <class T>
void project_ewa(const SceneT<T>& scene, const Camera& camera, const RenderSettings& settings,
                 Projected<T>& out);

// List the (tile, Gaussian) pairs whose footprint reaches the tile (exact ellipse test) and sort them by
// (tile, depth); ties keep Gaussian order, so the result is deterministic.
template <class T>
void bin_and_sort(const Projected<T>& projected, const TileGrid& grid, const RenderSettings& settings,
                  TileLists& lists);

// Front-to-back traced raster over each tile's list.
template <class T>
void raster_fwd(const Projected<T>& projected, const TileLists& lists, const TileGrid& grid,
                const RenderSettings& settings, ForwardResult<T>& out);

// The whole forward: validate, project, bin, sort, raster (settings.shading == ray: render_forward_ray).
template <class T>
ForwardResult<T> render_forward(const SceneT<T>& scene, const Camera& camera, const RenderSettings& settings);

}  // namespace radiant::cpu

#include "radiant/core/image.hpp"
#include "radiant/render/grads.hpp"

namespace radiant::cpu {

// Raster backward from the forward's trace, never re-running the forward (DESIGN.md §1.6): walks each pixel's
// hits back to front, in either trace mode, with ∂C/∂α_i = T_i (c_i − D_i) and ∂C/∂c_i = T_i α_i. v_rgb is
// ∂L/∂C [H, W, 3]; loss_grad_clip (when > 0) clamps it per component first. Deterministic: each tile's
// contributions are kept per (tile, Gaussian) pair and summed per Gaussian in list order.
template <class T>
RasterGrads<T> raster_bwd(const ForwardResult<T>& fwd, const Image<T>& v_rgb, const RenderSettings& settings);

// Geometry backward (DESIGN.md §1.7): from the 2D gradients to every Scene parameter, analytically.
template <class T>
void project_ewa_bwd(const SceneT<T>& scene, const Camera& camera, const RenderSettings& settings,
                     const ForwardResult<T>& fwd, const RasterGrads<T>& raster, SceneGradsT<T>& out);

// raster_bwd then project_ewa_bwd (settings.shading == ray: render_backward_ray).
template <class T>
SceneGradsT<T> render_backward(const SceneT<T>& scene, const Camera& camera, const RenderSettings& settings,
                               const ForwardResult<T>& fwd, const Image<T>& v_rgb);

}  // namespace radiant::cpu
