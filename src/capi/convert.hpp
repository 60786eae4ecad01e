#pragma once
// The C API's plain structs to radiant's types and back, checked: a caller's bad camera or options is an
// Error naming the field, never undefined behaviour.
#include "radiant/c/radiant.h"
#include "radiant/core/camera.hpp"
#include "radiant/core/error.hpp"
#include "radiant/core/render_settings.hpp"

namespace radiant::capi {

Camera to_camera(const rd_camera* camera);
rd_camera from_camera(const Camera& camera);
// `scene_degree` resolves sh_degree = -1 and caps nothing: a degree above the scene's is an error.
RenderSettings to_settings(const rd_render_options* options, int scene_degree);

template <class T>
T* checked(T* handle, const char* what) {
    if (!handle) throw Error(std::string(what) + " is NULL");
    return handle;
}

}  // namespace radiant::capi
