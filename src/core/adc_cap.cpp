#include "radiant/core/adc_cap.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "radiant/core/densify_rules.hpp"

namespace radiant {

float adc_capped_threshold(const std::vector<float>& grad_accum, const std::vector<std::int32_t>& denom,
                           const std::vector<std::uint32_t>& actions, float threshold, std::size_t max_size) {
    // What each Gaussian leaves without densifying (1, or 0 when pruned) and how many more it leaves when
    // densified: the result's size is the base plus the extras of the candidates at or above the threshold.
    std::size_t base = 0;
    std::vector<std::pair<float, int>> candidates;  // (mean gradient, extra)
    for (std::size_t i = 0; i < actions.size(); ++i) {
        const std::uint32_t a = actions[i];
        const int stays = (a & kAdcPrune) ? 0 : 1;
        base += std::size_t(stays);
        if (a & (kAdcClone | kAdcSplit))
            candidates.emplace_back(grad_accum[i] / float(denom[i]), adc_outputs(a) - stays);
    }
    std::size_t total = base;
    for (const auto& c : candidates) total += std::size_t(c.second);
    if (total <= max_size) return threshold;
    std::sort(candidates.begin(), candidates.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    std::size_t size = base;
    for (const auto& [grad, extra] : candidates) {
        if (size + std::size_t(extra) > max_size)
            // Everything from this gradient down waits (ties included, so the result may stay under the cap).
            return std::nextafter(grad, std::numeric_limits<float>::infinity());
        size += std::size_t(extra);
    }
    return threshold;  // not reached: the candidates' total exceeds max_size
}

}  // namespace radiant
