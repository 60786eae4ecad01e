// `radiant`: train, render and inspect 3D Gaussian Splatting scenes.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "commands.hpp"
#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"

int main(int argc, char** argv) {
    CLI::App app{"radiant — train, render and inspect 3D Gaussian Splatting scenes"};
    app.require_subcommand(1);
    app.allow_extras(false);
    std::string log_level = "info";
    app.add_option("--log-level", log_level, "error, warn, info or debug")->capture_default_str();
    radiant::app::add_info_command(app);
    radiant::app::add_render_command(app);
    radiant::app::add_demo_command(app);
    radiant::app::add_train_command(app);
    radiant::app::add_bench_command(app);
    radiant::app::add_convert_command(app);
    radiant::app::add_view_command(app);
    app.parse_complete_callback([&] { radiant::set_log_level(radiant::parse_log_level(log_level)); });
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
    return 0;
}
