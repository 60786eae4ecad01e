// `radiant convert IN OUT`: between the standard PLY, .splat, SuperSplat's compressed PLY and SPZ.
#include <fmt/format.h>

#include <cstdio>

#include "commands.hpp"
#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/io/scene_formats.hpp"

namespace radiant::app {

void add_convert_command(CLI::App& app) {
    auto paths = std::make_shared<std::array<std::string, 2>>();
    auto* cmd = app.add_subcommand(
        "convert", "Convert a scene between .ply, .compressed.ply, .splat and .spz (formats by extension)");
    cmd->add_option("input", (*paths)[0], "scene to read")->required();
    cmd->add_option("output", (*paths)[1], "scene to write")->required();
    cmd->callback([paths] {
        const auto& [in, out] = *paths;
        const Scene scene = read_scene(in);
        const SceneFormat to = scene_format_from_path(out);
        FormatFit fit;
        try {
            fit = write_scene(out, scene);
        } catch (const IoError&) {
            throw;
        } catch (const Error& e) {
            throw Error(fmt::format("{}: {}; {} was not written", in, e.what(), out));
        }
        if (fit.clamped > 0)
            log_warn("{}: {} {} clamped, as {} does", out, fit.clamped, fit.what, scene_format_name(to));
        std::printf("%s (%s, %zu Gaussians, SH degree %d) -> %s (%s)\n", in.c_str(),
                    scene_format_name(scene_format_from_path(in)), scene.size(), scene.sh_degree, out.c_str(),
                    scene_format_name(to));
        if (to != SceneFormat::ply) {
            // Lossy: read back what was written and say what it changed.
            const Scene back = read_scene(out);
            const QuantisationError e = quantisation_error(scene, back);
            std::printf(
                "quantisation: position %.3g (max abs), colour %.3g (0-1), opacity %.3g, log-scale %.3g, SH "
                "%.3g%s\n",
                e.position, e.colour, e.opacity, e.log_scale, e.sh_rest,
                back.sh_degree < scene.sh_degree
                    ? fmt::format(" (SH above degree {} dropped)", back.sh_degree).c_str()
                    : "");
        }
    });
}

}  // namespace radiant::app
