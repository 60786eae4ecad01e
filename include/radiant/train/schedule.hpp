#pragma once
// Learning-rate and SH-degree schedules (DESIGN.md §6, Inria 3DGS).
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

}  // namespace radiant
