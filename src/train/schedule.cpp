#include "radiant/train/schedule.hpp"

#include <algorithm>
#include <cmath>

namespace radiant {

double exponential_lr(double init, double final, long step, long max_steps) {
    if (max_steps <= 0) return final;
    const double t = std::clamp(double(step) / double(max_steps), 0.0, 1.0);
    return std::exp(std::log(init) * (1 - t) + std::log(final) * t);
}

LearningRates learning_rates(const LrConfig& c, double extent, long step, long max_steps) {
    LearningRates lr;
    lr.means = exponential_lr(c.means_init * extent, c.means_final * extent, step, max_steps);
    lr.log_scales = c.log_scales;
    lr.quats = c.quats;
    lr.opacity_logits = c.opacity;
    lr.sh_dc = c.sh_dc;
    lr.sh_rest = c.sh_rest;
    return lr;
}

int active_sh_degree(long step, int max_degree, long interval) {
    if (interval <= 0) return max_degree;
    return int(std::min<long>(max_degree, step / interval));
}

}  // namespace radiant
