// `radiant info FILE.ply`: what a scene holds.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "commands.hpp"
#include "dataset_flags.hpp"
#include "radiant/core/error.hpp"
#include "radiant/io/dataset.hpp"
#include "radiant/io/ply.hpp"
#include "radiant/io/scene_formats.hpp"

namespace radiant::app {

void add_info_command(CLI::App& app) {
    auto* cmd =
        app.add_subcommand("info", "Describe a scene (.ply) or a dataset folder (COLMAP, transforms.json)");
    auto path = std::make_shared<std::string>();
    auto options = std::make_shared<DatasetOptions>();
    cmd->add_option("path", *path, "a 3DGS .ply file or a dataset folder")->required();
    add_dataset_flags(cmd, {&options->downscale, &options->undistort, &options->resample, &options->images,
                            &options->masks, &options->alpha});
    auto ray = std::make_shared<bool>(false);
    cmd->add_flag("--ray", *ray, "dataset: as --shading ray trains it (no undistortion)");
    cmd->add_flag("--eval", options->eval, "dataset: hold out every --test-every-th image");
    cmd->add_option("--test-every", options->test_every, "dataset: test split period")->capture_default_str();
    cmd->callback([path, options, ray] {
        if (std::filesystem::is_directory(*path)) {
            DatasetOptions o = *options;
            if (*ray) o.undistort = Undistort::none;
            std::printf("%s", describe(open_dataset(*path, o)).c_str());
            return;
        }
        const Scene scene = read_scene(*path);
        const SceneStats st = compute_stats(scene);
        std::printf("%s\n", fmt::format("file        {}\n"
                                        "format      {}\n"
                                        "gaussians   {}\n"
                                        "sh degree   {} ({} coefficients per channel)\n"
                                        "bounds min  {:.4f} {:.4f} {:.4f}\n"
                                        "bounds max  {:.4f} {:.4f} {:.4f}\n"
                                        "opacity     min {:.4f}  mean {:.4f}  max {:.4f}\n"
                                        "scale       min {:.3g}  median {:.3g}  max {:.3g}",
                                        *path, scene_format_name(scene_file_format(*path)), st.count,
                                        st.sh_degree, sh_coeff_count(st.sh_degree), st.bounds_min.x,
                                        st.bounds_min.y, st.bounds_min.z, st.bounds_max.x, st.bounds_max.y,
                                        st.bounds_max.z, st.opacity_min, st.opacity_mean, st.opacity_max,
                                        st.scale_min, st.scale_median, st.scale_max)
                                .c_str());
    });
}

}  // namespace radiant::app
