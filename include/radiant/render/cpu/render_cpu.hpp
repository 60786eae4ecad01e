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
                 const TileGrid& grid, Projected<T>& out);

// List the (tile, Gaussian) pairs whose footprint reaches the tile (exact ellipse test) and sort them by
// (tile, depth); ties keep Gaussian order, so the result is deterministic.
template <class T>
void bin_and_sort(const Projected<T>& projected, const TileGrid& grid, const RenderSettings& settings,
                  TileLists& lists);

// Front-to-back traced raster over each tile's list.
template <class T>
void raster_fwd(const Projected<T>& projected, const TileLists& lists, const TileGrid& grid,
                const RenderSettings& settings, ForwardResult<T>& out);

// The whole forward: validate, project, bin, sort, raster.
template <class T>
ForwardResult<T> render_forward(const SceneT<T>& scene, const Camera& camera, const RenderSettings& settings);

}  // namespace radiant::cpu
