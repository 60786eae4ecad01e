// `radiant demo`: the built-in demo scene, written as a PLY and rendered from an orbit of views.
#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "radiant/core/demo_scene.hpp"
#include "radiant/core/log.hpp"
#include "radiant/io/ply.hpp"
#include "render_views.hpp"

namespace radiant::app {

void add_demo_command(CLI::App& app) {
    struct Args {
        std::string out = "out/demo";
        int views = 8, width = 640, height = 480;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand("demo", "Write the built-in demo scene and render it from an orbit");
    cmd->add_option("-o,--output", a->out, "output folder")->capture_default_str();
    cmd->add_option("--views", a->views, "orbit views to render")
        ->check(CLI::Range(1, 360))
        ->capture_default_str();
    cmd->add_option("--width", a->width, "image width")->check(CLI::Range(16, 8192))->capture_default_str();
    cmd->add_option("--height", a->height, "image height")
        ->check(CLI::Range(16, 8192))
        ->capture_default_str();
    cmd->callback([a] {
        std::filesystem::create_directories(a->out);
        const DemoScene demo = make_demo_scene();
        const std::string ply = (std::filesystem::path(a->out) / "scene.ply").string();
        write_ply(ply, demo.scene);
        log_info("demo scene: {} Gaussians, written to {}", demo.scene.size(), ply);
        RenderSettings settings;
        settings.background = {1.0, 1.0, 1.0};
        const auto cams =
            orbit(demo.centre, demo.orbit_radius, 25.0, a->views, demo.up, 45.0, a->width, a->height);
        const auto paths =
            render_views(demo.scene, cams, settings, (std::filesystem::path(a->out) / "view.png").string());
        log_info("demo: {} renders in {}/ (view_000.png ... view_{:03d}.png)", paths.size(), a->out,
                 paths.size() - 1);
    });
}

}  // namespace radiant::app
