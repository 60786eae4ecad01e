#include "radiant/train/divergence.hpp"

#include <fmt/format.h>

#include <cmath>

namespace radiant {

std::string DivergenceWatch::add(long step, double loss) {
    if (!std::isfinite(loss)) return fmt::format("the loss is {} at step {}", loss, step);
    if (rule_.patience <= 0) return "";
    if (seen_ < rule_.warmup) {
        reference_ += loss;
        if (++seen_ == rule_.warmup) smoothed_ = reference_ /= double(rule_.warmup);
        return "";
    }
    // An exponential mean over about `warmup` steps: single hard views do not count, a trend does.
    smoothed_ += (loss - smoothed_) / double(rule_.warmup);
    if (!(smoothed_ > rule_.factor * reference_)) {
        above_since_ = -1;
        return "";
    }
    if (above_since_ < 0) above_since_ = step;
    if (step - above_since_ < rule_.patience) return "";
    return fmt::format(
        "the loss has stayed above {}x its level over the first {} steps ({:.4g}) since step {} "
        "(now {:.4g})",
        rule_.factor, rule_.warmup, reference_, above_since_, smoothed_);
}

}  // namespace radiant
