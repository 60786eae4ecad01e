#include "convert.hpp"

#include <fmt/format.h>

#include "radiant/core/error.hpp"

namespace radiant::capi {

Camera to_camera(const rd_camera* c) {
    checked(c, "camera");
    Camera cam;
    cam.width = c->width;
    cam.height = c->height;
    cam.fx = c->fx;
    cam.fy = c->fy;
    cam.cx = c->cx;
    cam.cy = c->cy;
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) cam.R[r][k] = c->R[3 * r + k];
    cam.t = {c->t[0], c->t[1], c->t[2]};
    switch (c->model) {
        case RD_PINHOLE:
            cam.model = CameraModel::pinhole;
            break;
        case RD_OPENCV:
            cam.model = CameraModel::opencv;
            break;
        case RD_FISHEYE:
            cam.model = CameraModel::fisheye;
            break;
        default:
            throw Error(
                fmt::format("camera: model {} is not pinhole (0), opencv (1) or fisheye (2)", c->model));
    }
    if (c->n_distortion < 0 || c->n_distortion > 8)
        throw Error(fmt::format("camera: n_distortion {} is outside 0–8", c->n_distortion));
    cam.distortion.assign(c->distortion, c->distortion + c->n_distortion);
    validate(cam, "camera");
    return cam;
}

rd_camera from_camera(const Camera& cam) {
    rd_camera c{};
    c.width = cam.width;
    c.height = cam.height;
    c.fx = cam.fx;
    c.fy = cam.fy;
    c.cx = cam.cx;
    c.cy = cam.cy;
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) c.R[3 * r + k] = cam.R[r][k];
    for (int k = 0; k < 3; ++k) c.t[k] = cam.t[k];
    c.model = cam.model == CameraModel::opencv    ? RD_OPENCV
              : cam.model == CameraModel::fisheye ? RD_FISHEYE
                                                  : RD_PINHOLE;
    c.n_distortion = int32_t(std::min<std::size_t>(cam.distortion.size(), 8));
    for (int k = 0; k < c.n_distortion; ++k) c.distortion[k] = cam.distortion[std::size_t(k)];
    return c;
}

RenderSettings to_settings(const rd_render_options* o, int scene_degree) {
    rd_render_options defaults;
    rd_render_options_default(&defaults);
    if (!o) o = &defaults;
    RenderSettings s;
    s.sh_degree = o->sh_degree < 0 ? scene_degree : o->sh_degree;
    if (s.sh_degree > scene_degree)
        throw Error(
            fmt::format("options: sh_degree {} is above the scene's degree {}", s.sh_degree, scene_degree));
    for (int k = 0; k < 3; ++k) s.background[std::size_t(k)] = o->background[k];
    if (o->shading != RD_SHADING_EWA && o->shading != RD_SHADING_RAY)
        throw Error(fmt::format("options: shading {} is not ewa (0) or ray (1)", o->shading));
    s.shading = o->shading == RD_SHADING_RAY ? Shading::ray : Shading::ewa;
    s.antialiased = o->antialiased != 0;
    s.eps2d = o->eps2d;
    s.near_plane = o->near_plane;
    s.far_plane = o->far_plane;
    s.tile_size = o->tile_size;
    validate(s);
    return s;
}

}  // namespace radiant::capi

extern "C" void rd_render_options_default(rd_render_options* o) {
    if (!o) return;
    const radiant::RenderSettings s;
    o->sh_degree = -1;
    for (int k = 0; k < 3; ++k) o->background[k] = s.background[std::size_t(k)];
    o->shading = RD_SHADING_EWA;
    o->antialiased = 0;
    o->eps2d = s.eps2d;
    o->near_plane = s.near_plane;
    o->far_plane = s.far_plane;
    o->tile_size = s.tile_size;
}
