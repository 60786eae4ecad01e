#pragma once
// Command-line flags for RenderSettings (DESIGN.md §4), shared by the commands that render.
#include <CLI/CLI.hpp>

#include <vector>

#include "radiant/core/render_settings.hpp"

namespace radiant::app {

struct RenderOptions {
    RenderSettings settings;
    std::vector<double> background{0, 0, 0};
};

void add_render_options(CLI::App& cmd, RenderOptions& o);
// Copies the parsed flag values into o.settings and validates them.
void finish_render_options(RenderOptions& o);

}  // namespace radiant::app
