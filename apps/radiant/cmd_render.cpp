// `radiant render`: a scene to images — from a look-at camera, a camera JSON file, the capture's own views
// (--views) or an orbit that flies round it as its cameras did (--orbit) — on the GPU when there is one.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "flythrough.hpp"
#include "radiant/core/capture_frame.hpp"
#include "radiant/core/demo_scene.hpp"
#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/io/camera_json.hpp"
#include "radiant/io/dataset.hpp"
#include "radiant/io/ply.hpp"
#include "radiant/io/scene_formats.hpp"
#include "radiant/prepare/video_frames.hpp"
#include "radiant/train/backend.hpp"
#include "radiant/train/trainer.hpp"
#include "render_options.hpp"
#include "render_views.hpp"

namespace radiant::app {
namespace {

namespace fs = std::filesystem;

struct RenderArgs {
    std::string model, out = "render.png", camera_json, data, views, backend = "auto";
    bool demo = false;
    std::vector<double> eye, target{0, 0, 0}, up{0, -1, 0};
    int orbit = 0;
    std::string path;  // orbit, spiral, train-cameras: a fly-through of `frames`
    int frames = 240;
    double fps = 30;
    double elevation = 20.0, fov = 50.0;
    int width = 800, height = 600;
    ViewOutputs outputs;
    RenderOptions render;
};

Vec3<double> vec3(const std::vector<double>& v, const char* flag) {
    if (v.size() != 3) throw Error(fmt::format("{} takes three values x,y,z", flag));
    return {v[0], v[1], v[2]};
}

// The capture's cameras, each with its split ("train"/"test"): the dataset's with --data, else the
// cameras.json of the run the scene belongs to. Empty when neither is there.
struct Capture {
    std::string source;
    std::vector<Camera> cameras;
    std::vector<std::string> splits;
};

Capture find_capture(const RenderArgs& a, const fs::path& scene_path) {
    Capture c;
    if (!a.data.empty()) {
        DatasetOptions o;
        o.eval = true;
        if (a.render.settings.shading == Shading::ray) o.undistort = Undistort::none;  // ray draws the lens
        const Dataset ds = open_dataset(a.data, o);
        c.cameras = ds.named_cameras();
        c.splits = ds.splits();
        c.source = a.data;
        return c;
    }
    const fs::path cams = scene_path.parent_path() / "cameras.json";
    std::error_code ec;
    if (fs::exists(cams, ec)) {
        c.cameras = read_cameras_json(cams.string(), &c.splits);
        c.source = cams.string();
    }
    return c;
}

std::vector<Camera> pick_views(const Capture& capture, const std::string& which) {
    if (which != "train" && which != "test" && which != "all")
        throw Error(fmt::format("--views {}: expected train, test or all", which));
    std::vector<Camera> picked;
    for (std::size_t i = 0; i < capture.cameras.size(); ++i)
        if (which == "all" || (i < capture.splits.size() && capture.splits[i] == which))
            picked.push_back(capture.cameras[i]);
    if (picked.empty())
        throw Error(fmt::format(
            "{} has no {} views{}", capture.source, which,
            which == "test" ? " (the run trained without --eval): use --views train or all" : ""));
    return picked;
}

void run(RenderArgs& a, const CLI::App& cmd) {
    finish_render_options(a.render);
    if (a.demo == !a.model.empty())
        throw Error("give exactly one of --model (a run folder or scene file) or --demo");
    const int sources = int(!a.camera_json.empty()) + int(!a.eye.empty()) + int(a.orbit > 0) +
                        int(!a.views.empty()) + int(!a.path.empty());
    if (sources != 1)
        throw Error(
            "give exactly one of --camera FILE.json, --eye x,y,z (look-at), --orbit N, --views SPLIT or "
            "--path orbit|spiral|train-cameras");
    const FlyPath fly = a.path.empty() ? FlyPath::orbit : parse_fly_path(a.path);
    if (!a.path.empty() && fly == FlyPath::orbit) a.orbit = a.frames;  // the orbit, with --frames views
    // A run folder renders its scene.ply with its cameras.
    fs::path scene_path = a.model;
    std::error_code ec;
    if (!a.demo && fs::is_directory(scene_path, ec)) {
        scene_path /= "scene.ply";
        if (!fs::exists(scene_path, ec))
            throw IoError(a.model, "is a folder without scene.ply: not a training output folder");
        // Splats trained with the anti-aliasing compensation are drawn with it, or small ones turn thick.
        if (!a.render.settings.antialiased && a.render.settings.shading == Shading::ewa) {
            const std::optional<RenderSettings> trained = run_render_settings(a.model);
            if (trained && trained->antialiased) {
                a.render.settings.antialiased = true;
                log_info("{} trained with --antialiased: rendering with it", a.model);
            }
        }
    }
    std::unique_ptr<Backend> backend = make_backend(a.backend);  // a bad name fails before any loading
    const DemoScene demo = a.demo ? make_demo_scene() : DemoScene{};
    TrainState state;
    state.params = a.demo ? demo.scene : read_scene(scene_path.string());
    const Capture capture = a.demo ? Capture{} : find_capture(a, scene_path);
    auto given = [&](const char* flag) { return cmd.count(flag) > 0; };

    std::vector<Camera> cams;
    if (!a.camera_json.empty()) {
        cams = read_cameras_json(a.camera_json);
        // `ewa` draws ideal pinhole images: a lens model would be dropped without a word.
        for (const Camera& c : cams)
            if (c.model != CameraModel::pinhole && a.render.settings.shading == Shading::ewa)
                throw IoError(
                    a.camera_json,
                    fmt::format("camera {} has {} lens distortion, which `ewa` cannot draw; render it "
                                "with --shading ray, or give an undistorted (pinhole) camera",
                                c.name.empty() ? "(unnamed)" : c.name, to_string(c.model)));
    } else if (!a.eye.empty()) {
        cams.push_back(look_at(vec3(a.eye, "--eye"), vec3(a.target, "--target"), vec3(a.up, "--up"), a.fov,
                               a.width, a.height));
    } else if (!a.path.empty() && fly != FlyPath::orbit) {
        if (capture.cameras.empty())
            throw Error(
                fmt::format("--path {} goes by the capture's cameras: render a run folder (its "
                            "cameras.json) or give the dataset with --data",
                            a.path));
        cams = fly_path_cameras(fly, a.frames, capture.cameras, capture.splits);
    } else if (!a.views.empty()) {
        if (capture.cameras.empty())
            throw Error(
                fmt::format("--views needs the capture's cameras: render a run folder (its cameras.json) "
                            "or give the dataset with --data"));
        cams = pick_views(capture, a.views);
    } else if (a.demo) {
        cams = orbit(demo.centre, demo.orbit_radius, a.elevation, a.orbit, demo.up, a.fov, a.width, a.height);
    } else if (!capture.cameras.empty() && !given("--up")) {
        CaptureFrame f = capture_frame(capture.cameras);
        if (given("--elevation")) f.elevation = a.elevation * 3.14159265358979 / 180.0;
        if (given("--fov")) f.fov_y_deg = a.fov;
        // One of width and height keeps the cameras' aspect.
        if (given("--width") && !given("--height"))
            f.height = std::max(1, int(std::lround(double(a.width) * f.height / f.width)));
        if (given("--height") && !given("--width"))
            f.width = std::max(1, int(std::lround(double(a.height) * f.width / f.height)));
        if (given("--width")) f.width = a.width;
        if (given("--height")) f.height = a.height;
        cams = capture_orbit(f, a.orbit);
        log_info("orbit from {}'s {} cameras: radius {:.3g} round ({:.3g}, {:.3g}, {:.3g}), {}",
                 capture.source, capture.cameras.size(), f.radius, f.focus.x, f.focus.y, f.focus.z,
                 f.span > 3.14159265358979 ? "a full circle" : "sweeping the arc they cover");
    } else {
        if (!given("--up"))
            log_warn(
                "no cameras for {} (no cameras.json beside it, no --data): the orbit assumes world up is "
                "--up {},{},{}",
                scene_path.string(), a.up[0], a.up[1], a.up[2]);
        cams =
            framing_orbit(state.params, a.orbit, a.elevation, vec3(a.up, "--up"), a.fov, a.width, a.height);
    }
    const bool video = has_video_extension(a.out);
    if (!video) view_paths(a.out, cams);  // a bad -o fails before the scene is rendered
    state.adam.reset_like(state.params);
    state.stats.reset(state.params.size());
    backend->load(state);
    log_info("rendering {} view{} of {} Gaussians on the {} backend", cams.size(),
             cams.size() == 1 ? "" : "s", backend->size(), backend->name());
    if (video)
        write_flythrough(*backend, cams, a.render.settings, a.out, a.fps);
    else
        render_views(*backend, cams, a.render.settings, a.out, a.outputs);
}

}  // namespace

void add_render_command(CLI::App& app) {
    auto a = std::make_shared<RenderArgs>();
    auto* cmd = app.add_subcommand(
        "render", "Render a scene (a run folder, a scene file, or the built-in demo) to images");
    cmd->add_option("-m,--model,--ply", a->model,
                    "a training run's folder (its scene.ply and cameras.json) or a scene file (.ply, .spz, "
                    ".splat, .compressed.ply; cameras.json beside it is used when there)");
    cmd->add_flag(
        "--demo", a->demo,
        "render the built-in demo scene instead: ~7,700 Gaussians forming a red sphere, a green cube, a "
        "blue torus and a checkered floor (world up −y)");
    cmd->add_option(
           "-o,--output", a->out,
           "an image (.png, .jpg; several views add _NAME), a folder (views named after their cameras) or a "
           "video (.mp4, .mov, .webm, .mkv: the views as its frames, joined by ffmpeg)")
        ->capture_default_str();
    auto* cam = cmd->add_option_group("camera", "where to look from (exactly one)");
    cam->add_option("--camera", a->camera_json, "camera JSON file: one camera or {\"cameras\": [...]}");
    cam->add_option("--eye", a->eye, "look-at camera position x,y,z")->delimiter(',')->expected(3);
    cam->add_option(
           "--orbit", a->orbit,
           "N views flying round the scene at the height and distance of its cameras (from the run's "
           "cameras.json or --data), else framing its Gaussians about --up")
        ->check(CLI::PositiveNumber);
    cam->add_option("--views", a->views, "the capture's own cameras: train, test or all");
    cam->add_option(
        "--path", a->path,
        "a fly-through of --frames views: orbit (round the capture), spiral (round it, rising and "
        "sinking), train-cameras (smoothly through the training cameras in order); with -o "
        "NAME.mp4 a video");
    cmd->add_option("--frames", a->frames, "views along --path")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    cmd->add_option("--fps", a->fps, "frames a second of a video output (-o NAME.mp4)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    cmd->add_option("-d,--data", a->data, "the dataset whose cameras --views and --orbit use");
    cmd->add_option("--backend", a->backend, "auto, cpu or cuda")->capture_default_str();
    cmd->add_flag(
        "--depth", a->outputs.depth,
        "also NAME_depth.png (near red, far blue) and NAME_depth.npy (camera z per pixel, float32)");
    cmd->add_flag(
        "--median-depth", a->outputs.median_depth,
        "also NAME_median_depth.png and .npy: the depth where each pixel's transmittance falls below "
        "½ (sharp at object edges, where the expected depth blends foreground and background)");
    cmd->add_flag("--alpha", a->outputs.alpha,
                  "also NAME_alpha.png: each pixel's coverage (1 − transmittance)");
    cmd->add_option("--jpeg-quality", a->outputs.jpeg_quality, "JPEG quality for .jpg outputs")
        ->check(CLI::Range(1, 100))
        ->capture_default_str();
    cmd->add_option("--target", a->target, "look-at target x,y,z")
        ->delimiter(',')
        ->expected(3)
        ->capture_default_str();
    cmd->add_option("--up", a->up, "world direction shown up in the image (look-at; orbit without cameras)")
        ->delimiter(',')
        ->expected(3)
        ->capture_default_str();
    cmd->add_option("--elevation", a->elevation, "orbit elevation in degrees (default: the cameras')")
        ->capture_default_str();
    cmd->add_option("--fov", a->fov, "vertical field of view in degrees (look-at and orbit)")
        ->capture_default_str();
    cmd->add_option("--width", a->width,
                    "image width (look-at and orbit; default for an orbit: the cameras')")
        ->check(CLI::Range(1, 65536))
        ->capture_default_str();
    cmd->add_option("--height", a->height, "image height (look-at and orbit)")
        ->check(CLI::Range(1, 65536))
        ->capture_default_str();
    add_render_options(*cmd, a->render);
    cmd->callback([a, cmd] { run(*a, *cmd); });
}

}  // namespace radiant::app
