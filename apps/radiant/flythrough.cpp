#include "flythrough.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "radiant/core/camera_path.hpp"
#include "radiant/core/capture_frame.hpp"
#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/io/camera_json.hpp"
#include "radiant/io/scene_formats.hpp"
#include "radiant/prepare/subprocess.hpp"
#include "radiant/prepare/video_frames.hpp"
#include "radiant/train/trainer.hpp"
#include "render_views.hpp"

namespace radiant::app {
namespace fs = std::filesystem;

FlyPath parse_fly_path(const std::string& name) {
    if (name == "orbit") return FlyPath::orbit;
    if (name == "spiral") return FlyPath::spiral;
    if (name == "train-cameras") return FlyPath::train_cameras;
    throw Error(fmt::format("--path {}: expected orbit, spiral or train-cameras", name));
}

std::vector<Camera> fly_path_cameras(FlyPath path, int frames, const std::vector<Camera>& capture,
                                     const std::vector<std::string>& splits) {
    if (capture.empty()) throw Error("a fly-through path needs the capture's cameras");
    if (path == FlyPath::orbit) return capture_orbit(capture_frame(capture), frames);
    if (path == FlyPath::spiral) return capture_spiral(capture_frame(capture), frames);
    std::vector<Camera> train;
    for (std::size_t i = 0; i < capture.size(); ++i)
        if (i < splits.size() && splits[i] == "train") train.push_back(capture[i]);
    return interpolate_cameras(train.size() >= 2 ? train : capture, frames);
}

void write_flythrough(Backend& backend, const std::vector<Camera>& cameras, const RenderSettings& settings,
                      const std::string& out, double fps) {
    if (!has_video_extension(out))
        throw Error(fmt::format("{}: a fly-through is a video (.mp4, .mov, .webm, .mkv)", out));
    const fs::path frames = fs::path(out + ".frames");
    std::error_code ec;
    fs::remove_all(frames, ec);
    fs::create_directories(frames);
    log_info("fly-through: rendering {} frames on the {} backend", cameras.size(), backend.name());
    render_views(backend, cameras, settings, frames.string() + "/", ViewOutputs{});
    const std::string pattern = (frames / "%03d.png").string();
    if (find_program("ffmpeg").empty()) {
        std::string command;
        for (const std::string& a : encode_video_command("ffmpeg", pattern, fps, out)) command += a + " ";
        log_warn(
            "ffmpeg is not on PATH (Debian's `ffmpeg` package): the frames are in {}; join them with\n  {}",
            frames.string(), command);
        return;
    }
    encode_video(pattern, fps, out, (frames.parent_path() / ".ffmpeg.log").string());
    fs::remove_all(frames, ec);
    fs::remove(frames.parent_path() / ".ffmpeg.log", ec);
    log_info("fly-through: {} ({} frames, {:g} a second)", out, cameras.size(), fps);
}

void write_run_flythrough(const std::string& run, const std::string& backend_name, const std::string& out,
                          int frames, double fps) {
    std::vector<std::string> splits;
    const std::vector<Camera> capture = read_cameras_json((fs::path(run) / "cameras.json").string(), &splits);
    std::unique_ptr<Backend> backend = make_backend(backend_name);
    TrainState state;
    state.params = read_scene((fs::path(run) / "scene.ply").string());
    state.adam.reset_like(state.params);
    state.stats.reset(state.params.size());
    backend->load(state);
    RenderSettings settings = run_render_settings(run).value_or(RenderSettings{});
    settings.sh_degree = std::min(settings.sh_degree, state.params.sh_degree);
    write_flythrough(*backend, fly_path_cameras(FlyPath::train_cameras, frames, capture, splits), settings,
                     out, fps);
}

}  // namespace radiant::app
