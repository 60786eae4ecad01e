// rd_scene and the library-wide functions of the C API.
#include <fmt/format.h>

#include "convert.hpp"
#include "guard.hpp"
#include "handles.hpp"
#include "radiant/core/bench_scene.hpp"
#include "radiant/core/log.hpp"
#include "radiant/io/scene_formats.hpp"
#include "radiant/train/backend.hpp"
#if RADIANT_HAS_CUDA
#include "radiant/render/cuda/cuda_check.hpp"
#endif

using namespace radiant;
using radiant::capi::checked;
using radiant::capi::guarded;

extern "C" {

int rd_api_version(void) {
    return RD_API_VERSION;
}

const char* rd_version_string(void) {
#if RADIANT_HAS_CUDA
    return "radiant 0.1.0 (C API 1000, CUDA: yes)";
#else
    return "radiant 0.1.0 (C API 1000, CUDA: no)";
#endif
}

const char* rd_last_error(void) {
    return radiant::capi::last_error().c_str();
}

int rd_cuda_available(void) {
#if RADIANT_HAS_CUDA
    try {
        return cuda::device_available() ? 1 : 0;
    } catch (...) {
        return 0;
    }
#else
    return 0;
#endif
}

rd_status rd_set_log_level(const char* level) {
    return guarded([&] { set_log_level(parse_log_level(checked(level, "level"))); });
}

rd_status rd_scene_create(int64_t n, int32_t sh_degree, rd_scene** out) {
    return guarded([&] {
        checked(out, "out");
        if (n < 0) throw Error(fmt::format("rd_scene_create: n = {} is negative", n));
        if (sh_degree < 0 || sh_degree > 3)
            throw Error(fmt::format("rd_scene_create: SH degree {} is outside 0–3", sh_degree));
        auto s = std::make_unique<rd_scene>();
        s->scene.sh_degree = sh_degree;
        s->scene.resize(std::size_t(n));
        for (std::size_t i = 0; i < std::size_t(n); ++i) s->scene.quats[4 * i] = 1.f;
        *out = s.release();
    });
}

rd_status rd_scene_load(const char* path, rd_scene** out) {
    return guarded([&] {
        checked(path, "path");
        checked(out, "out");
        auto s = std::make_unique<rd_scene>();
        s->scene = read_scene(path);
        *out = s.release();
    });
}

rd_status rd_scene_save(const rd_scene* scene, const char* path) {
    return guarded([&] {
        checked(scene, "scene");
        checked(path, "path");
        validate(scene->scene, fmt::format("saving {}", path));
        const FormatFit fit = write_scene(path, scene->scene);
        if (fit.clamped) log_warn("{}: {} {} clamped by the format", path, fit.clamped, fit.what);
    });
}

void rd_scene_free(rd_scene* scene) {
    delete scene;
}

rd_status rd_scene_arrays_of(rd_scene* scene, rd_scene_arrays* out) {
    return guarded([&] {
        checked(scene, "scene");
        checked(out, "out");
        Scene& s = scene->scene;
        out->n = int64_t(s.size());
        out->sh_degree = s.sh_degree;
        out->means = s.means.data();
        out->log_scales = s.log_scales.data();
        out->quats = s.quats.data();
        out->opacity_logits = s.opacity_logits.data();
        out->sh = s.sh.data();
    });
}

rd_status rd_scene_validate(const rd_scene* scene) {
    return guarded([&] { validate(checked(scene, "scene")->scene, "scene"); });
}

rd_status rd_bench_scene(int64_t n, int32_t heavier, int32_t width, int32_t height, rd_scene** out,
                         rd_camera* camera) {
    return guarded([&] {
        checked(out, "out");
        checked(camera, "camera");
        if (n < 1) throw Error(fmt::format("rd_bench_scene: n = {} is below 1", n));
        if (width < 16 || height < 16 || width > 16384 || height > 16384)
            throw Error(fmt::format("rd_bench_scene: {}x{} is outside 16–16384", width, height));
        BenchSceneOptions o;
        o.count = std::size_t(n);
        o.heavier = heavier != 0;
        auto s = std::make_unique<rd_scene>();
        s->scene = make_bench_scene(o);
        *camera = capi::from_camera(bench_camera(width, height));
        *out = s.release();
    });
}

}  // extern "C"
