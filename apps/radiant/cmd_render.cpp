// `radiant render`: a scene to PNG from a look-at camera, a camera JSON file, or an orbit of N views.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "radiant/core/demo_scene.hpp"
#include "radiant/core/error.hpp"
#include "radiant/io/camera_json.hpp"
#include "radiant/io/ply.hpp"
#include "radiant/io/scene_formats.hpp"
#include "render_options.hpp"
#include "render_views.hpp"

namespace radiant::app {
namespace {

struct RenderArgs {
    std::string ply, out = "render.png", camera_json;
    bool demo = false;
    std::vector<double> eye, target{0, 0, 0}, up{0, -1, 0};
    int orbit = 0;
    double elevation = 20.0, fov = 50.0;
    int width = 800, height = 600;
    RenderOptions render;
};

Vec3<double> vec3(const std::vector<double>& v, const char* flag) {
    if (v.size() != 3) throw Error(fmt::format("{} takes three values x,y,z", flag));
    return {v[0], v[1], v[2]};
}

void run(RenderArgs& a) {
    finish_render_options(a.render);
    if (a.demo == !a.ply.empty()) throw Error("give exactly one of --ply FILE.ply or --demo");
    const DemoScene demo = a.demo ? make_demo_scene() : DemoScene{};
    const Scene scene = a.demo ? demo.scene : read_scene(a.ply);
    std::vector<Camera> cams;
    const int sources = int(!a.camera_json.empty()) + int(!a.eye.empty()) + int(a.orbit > 0);
    if (sources != 1)
        throw Error("give exactly one of --camera FILE.json, --eye x,y,z (look-at) or --orbit N");
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
    } else if (a.demo) {
        cams = orbit(demo.centre, demo.orbit_radius, a.elevation, a.orbit, demo.up, a.fov, a.width, a.height);
    } else {
        cams = framing_orbit(scene, a.orbit, a.elevation, vec3(a.up, "--up"), a.fov, a.width, a.height);
    }
    render_views(scene, cams, a.render.settings, a.out);
}

}  // namespace

void add_render_command(CLI::App& app) {
    auto a = std::make_shared<RenderArgs>();
    auto* cmd = app.add_subcommand("render", "Render a scene (.ply, or the built-in demo scene) to PNG");
    cmd->add_option("--ply", a->ply, "scene to render");
    cmd->add_flag(
        "--demo", a->demo,
        "render the built-in demo scene instead: ~7,700 Gaussians forming a red sphere, a green cube, a "
        "blue torus and a checkered floor (world up −y)");
    cmd->add_option("-o,--output", a->out, "output PNG; several views add _000, _001, ...")
        ->capture_default_str();
    auto* cam = cmd->add_option_group("camera", "where to look from (exactly one)");
    cam->add_option("--camera", a->camera_json, "camera JSON file: one camera or {\"cameras\": [...]}");
    cam->add_option("--eye", a->eye, "look-at camera position x,y,z")->delimiter(',')->expected(3);
    cam->add_option("--orbit", a->orbit, "N views on a circle framing the scene")->check(CLI::PositiveNumber);
    cmd->add_option("--target", a->target, "look-at target x,y,z")
        ->delimiter(',')
        ->expected(3)
        ->capture_default_str();
    cmd->add_option("--up", a->up, "world direction shown up in the image")
        ->delimiter(',')
        ->expected(3)
        ->capture_default_str();
    cmd->add_option("--elevation", a->elevation, "orbit elevation in degrees")->capture_default_str();
    cmd->add_option("--fov", a->fov, "vertical field of view in degrees (look-at and orbit)")
        ->capture_default_str();
    cmd->add_option("--width", a->width, "image width (look-at and orbit)")
        ->check(CLI::Range(1, 65536))
        ->capture_default_str();
    cmd->add_option("--height", a->height, "image height (look-at and orbit)")
        ->check(CLI::Range(1, 65536))
        ->capture_default_str();
    add_render_options(*cmd, a->render);
    cmd->callback([a] { run(*a); });
}

}  // namespace radiant::app
