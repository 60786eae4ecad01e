#include "radiant/train/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "radiant/core/error.hpp"

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

std::vector<ResolutionStage> parse_resolution_schedule(const std::string& text) {
    std::vector<ResolutionStage> stages;
    if (text.empty()) return stages;
    if (text.back() == ',')
        throw Error(fmt::format("resolution_schedule '{}': ends with a comma (FACTOR:STEP,…)", text));
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        ResolutionStage s;
        char colon = 0;
        std::istringstream is(item);
        if (!(is >> s.factor >> colon >> s.until) || colon != ':' || !(is >> std::ws).eof())
            throw Error(
                fmt::format("resolution_schedule '{}': '{}' is not FACTOR:STEP (say 4:2000)", text, item));
        if (s.factor < 2 || s.factor > 16)
            throw Error(fmt::format("resolution_schedule '{}': factor {} is not in 2..16", text, s.factor));
        if (s.until < 1)
            throw Error(fmt::format("resolution_schedule '{}': step {} is not positive", text, s.until));
        if (!stages.empty() && !(s.factor < stages.back().factor && s.until > stages.back().until))
            throw Error(fmt::format(
                "resolution_schedule '{}': factors must decrease and steps increase from stage to stage",
                text));
        stages.push_back(s);
    }
    return stages;
}

int resolution_factor(const std::vector<ResolutionStage>& schedule, long step) {
    for (const ResolutionStage& s : schedule)
        if (step < s.until) return s.factor;
    return 1;
}

int active_sh_degree(long step, int max_degree, long interval) {
    if (interval <= 0) return max_degree;
    return int(std::min<long>(max_degree, step / interval));
}

}  // namespace radiant
