#pragma once
// Rendering a scene from a list of cameras to PNG files, shared by `render` and `demo`.
#include <string>
#include <vector>

#include "radiant/core/camera.hpp"
#include "radiant/core/render_settings.hpp"
#include "radiant/core/scene.hpp"

namespace radiant::app {

// Output path of view i of n: `out` itself for one view, else `out` with _NNN before the extension.
std::string view_path(const std::string& out, std::size_t i, std::size_t n);

// Renders each camera, writes its PNG, logs the path; returns the paths written.
std::vector<std::string> render_views(const Scene& scene, const std::vector<Camera>& cameras,
                                      const RenderSettings& settings, const std::string& out);

// A camera orbit that frames the scene: centred on the median of the means, at a radius that holds
// 90 % of them in view.
std::vector<Camera> framing_orbit(const Scene& scene, int views, double elevation_deg, Vec3<double> up,
                                  double fov_y_deg, int width, int height);

}  // namespace radiant::app
