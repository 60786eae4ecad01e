// The host densification path of Backend: download, plan with the shared rules, apply. Backends that keep
// their parameters elsewhere (CUDA) replace these with their own.
#include "radiant/train/backend.hpp"

#include <cmath>

namespace radiant {

DensifyCounts Backend::densify_adc(const AdcConfig& config, double extent, long step, std::uint64_t seed) {
    const DensifyPlan plan = plan_adc(scene(), densify_stats(), config, extent, step, seed);
    DensifyCounts n;
    n.clone = plan.clone.size();
    n.split = plan.split.size();
    for (std::uint8_t p : plan.prune) n.prune += p;
    densify(plan);
    return n;
}

void Backend::reset_opacity(double value) {
    DensifyPlan plan;
    plan.reset_opacity = value;
    densify(plan);
}

DensifyCounts Backend::densify_mcmc(const McmcConfig& config, std::uint64_t seed) {
    const DensifyPlan plan = plan_mcmc(scene(), config, seed);
    DensifyCounts n;
    n.relocate = plan.relocate_dead.size();
    n.add = plan.add_source.size();
    densify(plan);
    return n;
}

std::size_t Backend::remove_non_finite() {
    const Scene s = scene();
    const std::size_t k = std::size_t(s.sh_coeffs()) * 3;
    auto finite = [](const float* x, std::size_t n) {
        for (std::size_t j = 0; j < n; ++j)
            if (!std::isfinite(x[j])) return false;
        return true;
    };
    DensifyPlan plan;
    plan.prune.assign(s.size(), 0);
    std::size_t removed = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const bool ok = finite(&s.means[3 * i], 3) && finite(&s.log_scales[3 * i], 3) &&
                        finite(&s.quats[4 * i], 4) && std::isfinite(s.opacity_logits[i]) &&
                        finite(&s.sh[k * i], k);
        plan.prune[i] = !ok;
        removed += !ok;
    }
    if (removed > 0) densify(plan);
    return removed;
}

}  // namespace radiant
