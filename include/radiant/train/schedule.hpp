#pragma once
// Learning-rate and SH-degree schedules (DESIGN.md §6, Inria 3DGS).
#include <string>
#include <vector>

#include "radiant/train/adam.hpp"

namespace radiant {

struct LrConfig {
    double means_init = 1.6e-4, means_final = 1.6e-6;  // × scene extent, exponential over the run
    double sh_dc = 2.5e-3, sh_rest = 2.5e-3 / 20;
    double opacity = 5e-2, log_scales = 5e-3, quats = 1e-3;
};

// Log-linear interpolation from `init` at step 0 to `final` at `max_steps` (clamped).
double exponential_lr(double init, double final, long step, long max_steps);

LearningRates learning_rates(const LrConfig& config, double extent, long step, long max_steps);

// Active SH degree: one band more every `interval` steps, up to max_degree.
int active_sh_degree(long step, int max_degree, long interval = 1000);

// The resolution schedule (DashGaussian's idea: the early steps, which fit coarse structure, at a fraction
// of the resolution cost a fraction of the raster): "F:S[,F:S…]" trains at 1/F of the resolution before
// step S — factors decreasing, at least 2, steps increasing —, at full resolution after the last.
struct ResolutionStage {
    int factor = 1;
    long until = 0;  // the first step at the next stage's factor
};
// Empty text: no stage (full resolution throughout). Throws Error saying what is wrong.
std::vector<ResolutionStage> parse_resolution_schedule(const std::string& text);
int resolution_factor(const std::vector<ResolutionStage>& schedule, long step);

}  // namespace radiant
