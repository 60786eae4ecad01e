#pragma once
// Rendering a scene from a list of cameras to image files, for `radiant render`.
#include <string>
#include <vector>

#include "radiant/core/camera.hpp"
#include "radiant/core/render_settings.hpp"
#include "radiant/core/scene.hpp"
#include "radiant/train/backend.hpp"

namespace radiant::app {

struct ViewOutputs {
    bool median_depth = false;  // NAME_median_depth.png and .npy: where T first falls below ½
    bool depth = false;  // NAME_depth.png (turbo colours, near = red) and NAME_depth.npy (camera z, float32)
    bool alpha = false;  // NAME_alpha.png (8-bit coverage)
    int jpeg_quality = 95;
};

// Where each camera's image goes. `out` is a folder when it exists as one, ends in '/' or has no extension:
// FOLDER/NAME.png, NAME the camera's name made a unique file name (its index when it has none). Otherwise
// `out` is an image file (.png, .jpg, .jpeg): itself for one camera, else OUT-STEM_NAME.EXT for each.
// Throws Error for another extension, before anything is rendered.
std::vector<std::string> view_paths(const std::string& out, const std::vector<Camera>& cameras);

// Renders each camera on `backend` (which holds the scene), writes its image (and the layers asked for),
// logs each path; returns the paths written.
std::vector<std::string> render_views(Backend& backend, const std::vector<Camera>& cameras,
                                      const RenderSettings& settings, const std::string& out,
                                      const ViewOutputs& outputs);

// A camera orbit that frames the scene when no capture cameras are known: centred on the median of the
// means, at a radius that holds 90 % of them in view.
std::vector<Camera> framing_orbit(const Scene& scene, int views, double elevation_deg, Vec3<double> up,
                                  double fov_y_deg, int width, int height);

}  // namespace radiant::app
