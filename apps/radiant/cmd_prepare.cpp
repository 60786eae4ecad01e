// `radiant prepare INPUT -o DATA`: photos or a video to a posed dataset, with COLMAP (issue 24).
#include <fmt/format.h>

#include <map>
#include <memory>

#include "commands.hpp"
#include "radiant/core/error.hpp"
#include "radiant/prepare/prepare.hpp"

namespace radiant::app {

void add_prepare_command(CLI::App& app) {
    auto o = std::make_shared<PrepareOptions>();
    auto* cmd = app.add_subcommand(
        "prepare",
        "Pose a folder of photos or a video with COLMAP (Debian's `colmap`): DATA/images, DATA/sparse/0, "
        "ready for `radiant train -d DATA`");
    cmd->add_option("input", o->input, "folder of photos (or one with an images/ folder), or a video file")
        ->required();
    cmd->add_option("-o,--output", o->output, "dataset folder to write (DATA)")->required();
    cmd->add_option("--fps", o->video.fps, "video: frames kept per second of video")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--frames", o->video.frames, "video: frames kept over the whole video (default 200)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--camera-model", o->camera_model,
                    "COLMAP camera model: OPENCV, SIMPLE_RADIAL, RADIAL, PINHOLE, SIMPLE_PINHOLE, "
                    "OPENCV_FISHEYE, …")
        ->capture_default_str();
    cmd->add_flag(
        "--per-image-camera", [o](std::int64_t) { o->single_camera = false; },
        "a camera per photo (photos from several phones or zoom levels) instead of one shared");
    static const std::map<std::string, Matcher> kMatchers{{"auto", Matcher::automatic},
                                                          {"exhaustive", Matcher::exhaustive},
                                                          {"sequential", Matcher::sequential}};
    cmd->add_option(
           "--matcher", o->matcher,
           "auto (sequential for a video or over 150 photos, else exhaustive), exhaustive or sequential")
        ->transform(CLI::CheckedTransformer(kMatchers, CLI::ignore_case));
    cmd->add_flag("--overwrite", o->overwrite, "replace an earlier prepare's photos and model in DATA");
    cmd->callback([o] {
        const PrepareResult r = prepare_dataset(*o);
        fmt::print(
            "prepared {}: {} of {} photos registered, {} points, mean reprojection error {:.3f} px\n"
            "train on it: radiant train -d {} -o OUT\n",
            o->output, r.registered, r.images, r.points, r.mean_reprojection_error, o->output);
    });
}

}  // namespace radiant::app
