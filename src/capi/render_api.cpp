// rd_renderer: a backend holding a scene, rendering cameras into the caller's memory — the path
// `radiant render` takes (Backend::render_layers), so the two give the same pixels.
#include <algorithm>

#include <fmt/format.h>

#include "convert.hpp"
#include "guard.hpp"
#include "handles.hpp"

using namespace radiant;
using radiant::capi::checked;
using radiant::capi::guarded;

namespace {

const char* backend_name(rd_device device) {
    switch (device) {
        case RD_DEVICE_AUTO:
            return "auto";
        case RD_DEVICE_CPU:
            return "cpu";
        case RD_DEVICE_CUDA:
            return "cuda";
    }
    throw Error(fmt::format("device {} is not auto (0), cpu (1) or cuda (2)", int(device)));
}

}  // namespace

extern "C" {

rd_status rd_renderer_create(rd_device device, rd_renderer** out) {
    if (device == RD_DEVICE_CUDA && !rd_cuda_available())
        return capi::fail(RD_ERROR_NO_CUDA,
                          "device cuda: no usable CUDA device (or radiant was built without "
                          "CUDA); use cpu or auto");
    return guarded([&] {
        checked(out, "out");
        auto r = std::make_unique<rd_renderer>();
        r->backend = make_backend(backend_name(device));
        r->device = r->backend->name();
        *out = r.release();
    });
}

void rd_renderer_free(rd_renderer* renderer) {
    delete renderer;
}

const char* rd_renderer_device(const rd_renderer* renderer) {
    return renderer ? renderer->device.c_str() : "";
}

rd_status rd_renderer_set_scene(rd_renderer* renderer, const rd_scene* scene) {
    return guarded([&] {
        checked(renderer, "renderer");
        checked(scene, "scene");
        validate(scene->scene, "rd_renderer_set_scene");
        TrainState state;
        state.params = scene->scene;
        state.adam.reset_like(state.params);
        state.stats.reset(state.params.size());
        renderer->backend->load(state);
        renderer->has_scene = true;
        renderer->sh_degree = scene->scene.sh_degree;
    });
}

rd_status rd_render(rd_renderer* renderer, const rd_camera* camera, const rd_render_options* options,
                    float* rgb, float* alpha, float* depth) {
    return guarded([&] {
        checked(renderer, "renderer");
        checked(rgb, "rgb");
        if (!renderer->has_scene) throw Error("rd_render: the renderer has no scene (rd_renderer_set_scene)");
        const Camera cam = capi::to_camera(camera);
        const RenderSettings settings = capi::to_settings(options, renderer->sh_degree);
        if (cam.model != CameraModel::pinhole && settings.shading == Shading::ewa)
            throw Error(
                fmt::format("rd_render: the camera has {} lens distortion, which `ewa` cannot draw; "
                            "render with ray shading or give a pinhole camera",
                            to_string(cam.model)));
        const RenderLayers r = renderer->backend->render_layers(cam, settings, depth != nullptr);
        std::copy(r.rgb.data.begin(), r.rgb.data.end(), rgb);
        if (alpha) std::copy(r.alpha.data.begin(), r.alpha.data.end(), alpha);
        if (depth) std::copy(r.depth.data.begin(), r.depth.data.end(), depth);
    });
}

}  // extern "C"
