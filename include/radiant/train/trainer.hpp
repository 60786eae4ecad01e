#pragma once
// The training loop (issue 5), written once against Backend. Reads the dataset, initialises or resumes,
// steps with the schedules and the densification strategy, evaluates, checkpoints, and writes the outputs:
// scene.ply, config.json, metrics.json, renders/, report.html, checkpoint.bin.
#include <functional>
#include <optional>
#include <string>

#include "radiant/core/image.hpp"
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
};

class Backend;

struct TrainHooks {
    // Called once with the loaded images before training: tests change them (drop the masks, say) to
    // show what they matter.
    std::function<void(std::vector<TargetImage>& images)> on_images;
    // Called before every step with the backend about to run it: tests inject faults through it.
    std::function<void(long step, Backend& backend)> before_step;
    // Called after every step; returning false stops the run as Ctrl-C does (checkpoint, no final outputs).
    std::function<bool(long step)> after_step;
};

// resume: continue from OUT/checkpoint.bin with the settings stored in it.
TrainResult train(const TrainConfig& config, bool resume = false, const TrainHooks& hooks = {});

// Re-evaluates a saved model (OUT/scene.ply with OUT/config.json) on a dataset's test views; `undistort`
// other than the run's scores an `ewa` model on the other mode's views (a mask-trained model on the
// crop's pixels, say, to compare the two on the same pixels).
TrainResult evaluate_model(const std::string& model_dir, const std::string& data_dir,
                           const std::string& backend, std::optional<Undistort> undistort = std::nullopt);

// Ctrl-C handling for `radiant train`: SIGINT asks the running loop to checkpoint and stop.
void install_interrupt_handler();

}  // namespace radiant
