#pragma once
// The training loop (issue 5), written once against Backend. Reads the dataset, initialises or resumes,
// steps with the schedules and the densification strategy, evaluates, checkpoints, and writes the outputs:
// scene.ply, config.json, metrics.json, renders/, report.html, checkpoint.bin.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "radiant/core/image.hpp"
#include "radiant/train/checkpoint.hpp"
#include "radiant/train/config.hpp"
#include "radiant/train/report.hpp"

namespace radiant {

struct TrainResult {
    bool interrupted = false;
    long steps = 0;
    double test_psnr = 0, test_ssim = 0;
    std::size_t gaussians = 0;
    double seconds = 0;
    std::string report_path;
    std::vector<ViewMetrics> views;
    std::vector<std::string> outputs;  // the files and folders the run wrote, for the user
    std::string metrics_json;          // what metrics.json holds
};

class Backend;

// Where a run is, after each step (for a live viewer).
struct StepReport {
    long step = 0, steps = 0;
    double loss = 0, psnr = 0;  // this step's
    std::size_t gaussians = 0;
    double seconds = 0;  // training time so far (evaluations and holds excluded)
    double steps_per_second = 0;
};

// What a hook between steps asks of the run, and how long it held it (a pause): that time is not training.
enum class RunRequest { none, checkpoint, stop };
struct BetweenSteps {
    RunRequest request = RunRequest::none;
    double held_seconds = 0;
};

struct TrainHooks {
    // Called once with the loaded images before training: tests change them (drop the masks, say) to
    // show what they matter.
    std::function<void(std::vector<TargetImage>& images)> on_images;
    // Called before every step with the backend about to run it: tests inject faults through it.
    std::function<void(long step, Backend& backend)> before_step;
    // Called after every step; returning false stops the run as Ctrl-C does (checkpoint, no final outputs).
    std::function<bool(long step)> after_step;
    // Called once the dataset is open, before training, with the settings the run renders with (shading
    // model, background): a live viewer offers its cameras and draws as the run does.
    std::function<void(const Dataset& dataset, const RenderSettings& settings)> on_dataset;
    // Called between steps with the backend: a live viewer renders here, holds the run while paused, and
    // asks for a checkpoint now or a stop (with checkpoint, as Ctrl-C).
    std::function<BetweenSteps(const StepReport& report, Backend& backend)> between_steps;
};

// A new run in config.output. Refused (before anything is written) when the folder holds a run, unless
// config.overwrite; everything is checked and loaded before the folder is written.
TrainResult train(const TrainConfig& config, const TrainHooks& hooks = {});

// What a resumed run may change; everything else keeps the run's settings.
struct ResumeChanges {
    std::optional<long> steps;  // more steps extend the run; fewer than it has done are refused
    std::optional<std::string> data, backend;  // the dataset moved; another device
    std::optional<long> eval_every, checkpoint_every, log_every, profile_every;
};

// The checkpoint file of the run in `run_dir`; throws IoError when the folder or the file is missing.
std::string checkpoint_to_resume(const std::string& run_dir);

// The settings of the run in `run_dir` whose checkpoint is `checkpoint` (its file: `checkpoint_path`), with
// `changes` applied: what a resumed run trains with, on one process or over ranks.
TrainConfig resumed_config(const std::string& run_dir, const Checkpoint& checkpoint,
                           const std::string& checkpoint_path, const ResumeChanges& changes);

// Continues the run in `run_dir` (the folder named, wherever it was first written) from its checkpoint.
TrainResult resume(const std::string& run_dir, const ResumeChanges& changes = {},
                   const TrainHooks& hooks = {});

// Scores a saved model on a dataset's test views (every 8th view without a split): a run folder (its
// scene.ply with its config.json, on its own dataset unless `data_dir` names another) or a scene file of any
// format (.ply, .spz, .splat, .compressed.ply; `data_dir` required, default settings). `undistort` other
// than the run's scores an `ewa` model on the other mode's views (a mask-trained model on crop's pixels,
// say). `eval_appearance` other than the run's scores with that protocol (train/appearance_fit.hpp);
// `eval_pose_fit` other than the run's fits each test view's pose first (train/pose_fit.hpp).
// Writes eval.json beside the model (in the run folder, or the scene file's folder).
TrainResult evaluate_model(const std::string& model, const std::string& data_dir, const std::string& backend,
                           std::optional<Undistort> undistort = std::nullopt,
                           std::optional<EvalAppearance> eval_appearance = std::nullopt,
                           std::optional<int> eval_pose_fit = std::nullopt);

// The render settings a run folder trained and was scored with (its config.json: shading, anti-aliasing,
// background, …); nullopt when the folder has no config.json.
std::optional<RenderSettings> run_render_settings(const std::string& run_dir);

// Ctrl-C and SIGTERM for `radiant train`: at any moment they end the run promptly, with a checkpoint when
// there is a step to save (an Interrupted error before that, with nothing written).
// What the trainer and the other trainers over it (distributed/) share: the dataset options of a run's
// settings, the settings its evaluation renders with, and how a new run treats an earlier one's folder.
DatasetOptions dataset_options(const TrainConfig& config);
RenderSettings eval_settings(const TrainConfig& config, int sh_degree);
void refuse_to_replace_a_run(const std::filesystem::path& out, bool overwrite);
// --force: an earlier run's outputs in `out` removed before a new run writes there.
void clear_run(const std::filesystem::path& out);
// A new run's scene: the dataset's points (or random ones) as the settings initialise them, cut to MCMC's
// budget (with a warning) when they exceed it.
Scene initial_run_scene(const Dataset& dataset, const TrainConfig& config);

void install_interrupt_handler();
// A dataset's name for titles: its folder's, or the parent's when the folder has a generic name (the demo's
// OUT/data, a nerfstudio export's …/dataset).
std::string dataset_title(const std::string& data);

// Whether Ctrl-C or SIGTERM has come (for loops that hold a run, such as a paused viewer).
bool interrupt_requested();

}  // namespace radiant
