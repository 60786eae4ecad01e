#pragma once
// Every setting of a training run. `radiant train` fills it from flags and --config FILE.json (same keys);
// the run writes the settings it used to OUT/config.json.
#include <string>
#include <vector>

#include "radiant/core/render_settings.hpp"
#include "radiant/io/dataset.hpp"
#include "radiant/train/adam.hpp"
#include "radiant/train/appearance.hpp"
#include "radiant/train/appearance_fit.hpp"
#include "radiant/train/densify.hpp"
#include "radiant/train/pose_opt.hpp"
#include "radiant/train/schedule.hpp"

namespace radiant {

struct TrainConfig {
    // The recipe the other settings started from (preset_config); set settings override it.
    std::string preset = "default";
    std::string data;  // dataset folder
    std::string output = "out/train";
    long steps = 30000;
    int downscale = 0;  // 0: full size, or the longer side capped at 1600 px (DatasetOptions)
    // `ewa` on distorted photos: crop to the valid rectangle (gsplat's camera), or mask the pixels without a
    // source (README: "Distorted lenses").
    Undistort undistort = Undistort::crop;
    Resample resample = Resample::bilinear;
    std::string images, masks;  // image and mask folders (DatasetOptions); empty: the layout's own
    AlphaUse alpha = AlphaUse::automatic;
    bool eval = false;  // hold out every test_every-th image
    int test_every = 8;
    std::string strategy = "default";  // "default" (ADC) or "mcmc"
    int sh_degree = 3;
    long sh_interval = 1000;          // one SH band more every this many steps
    std::string resolution_schedule;  // "F:S,…" (schedule.hpp): 1/F of the resolution before step S
    std::string backend = "auto";
    bool white_background = false;
    bool random_background = false;
    std::uint64_t seed = 0;
    long eval_every = 0;          // 0: only at the end
    long checkpoint_every = 0;    // 0: only at the end and on Ctrl-C
    long log_every = 100;         // history points for the report; log lines when not on a TTY
    long diverge_patience = 500;  // stop when the loss stays above 2× its start this long (0: only on NaN)
    double lambda_ssim = 0.2;
    // Which Gaussians each step's Adam updates (AdamScope). visible_sh (every Gaussian's geometry and
    // opacity, the SH of those the view sees) trained bonsai 8 % faster at the same PSNR and the demo scene
    // as well (bench/RESULTS.md, twenty-third session); multi-GPU training updates all.
    AdamScope adam_scope = AdamScope::visible_sh;
    std::size_t init_random_points = 100000;
    double init_opacity = 0.1;  // MCMC's recipe starts at 0.5
    double init_scale = 1.0;    // × the mean distance to the 3 nearest points; MCMC's recipe: 0.1
    // GPU memory the run may use, GiB (0: 95 % of what is free when it starts). Densification stays within
    // it (MemoryCap); images that would take more than half of it are refused with a --downscale suggestion.
    double memory_budget_gib = 0;
    // Formats written next to OUT/scene.ply at the end, comma-separated: spz, splat, compressed.ply.
    std::string export_formats;
    // Not a setting of the run but of this invocation (never in config.json): replace a run already in
    // `output` (its outputs are removed first) instead of refusing to.
    bool overwrite = false;
    // Likewise: time every Nth step stage by stage (0: off); the means go to metrics.json and the report.
    long profile_every = 0;
    // Per-image appearance learned beside the scene (off by default), and how test images are scored.
    AppearanceConfig appearance;
    PoseConfig pose;  // per-image pose refinement (--pose-opt), off by default
    EvalAppearance eval_appearance = EvalAppearance::identity;
    // Before a test view is scored, its pose is fitted to the scene by this many measuring steps
    // (train/pose_fit.hpp; 0: scored at its given pose). For --pose-opt runs, whose scene follows the
    // refined training cameras rather than the given ones.
    int eval_pose_fit = 0;
    RenderSettings render;
    // On the CUDA backend, time 8- and 16-pixel tiles during the run and train with the faster (TileTuner;
    // the output is the same); false: train with render.tile_size throughout.
    bool auto_tile_size = true;
    LrConfig lr;
    AdcConfig adc;
    McmcConfig mcmc;
};

// The recipes `--preset` names: "default" (Inria 3DGS's, 30k steps: DESIGN.md §6) and "fast" (a preview in
// seconds: fewer steps with densification, opacity reset and SH bands compressed into them). Error for
// another name.
TrainConfig preset_config(const std::string& name);

std::string config_to_json(const TrainConfig& config);
// Keys absent from the JSON keep their values in `base`; unknown keys are errors (a typo must not silently
// train with defaults).
TrainConfig config_from_json(const std::string& text, const std::string& name, TrainConfig base);
// Whether the JSON object in `text` sets `key` (so a strategy's own defaults must not override it).
bool config_sets(const std::string& text, const std::string& key);
// MCMC's recipe starts from more opaque, smaller Gaussians (opacity 0.5, scale 0.1 × the neighbour
// distance); applied by `radiant train --strategy mcmc` unless the config file sets them.
void apply_mcmc_init_recipe(TrainConfig& config, const std::string& config_text = "");
// The file extensions of `export_formats` ("spz,splat" → {"spz", "splat"}); Error for an unknown one.
std::vector<std::string> export_extensions(const std::string& formats);
// Throws Error for a setting out of range.
void validate(const TrainConfig& config);

}  // namespace radiant
