// The host densification path of Backend: download, plan with the shared rules, apply. Backends that keep
// their parameters elsewhere (CUDA) replace these with their own.
#include "radiant/train/backend.hpp"

#include <algorithm>
#include <cmath>

namespace radiant {

DensifyCounts Backend::densify_adc(const AdcConfig& config, double extent, long step, std::uint64_t seed) {
    const DensifyPlan plan = plan_adc(scene(), densify_stats(), config, extent, step, seed);
    DensifyCounts n;
    n.clone = plan.clone.size();
    n.split = plan.split.size();
    for (std::uint8_t p : plan.prune) n.prune += p;
    n.capped = plan.capped;
    densify(plan);
    n.gaussians = size();
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
    n.gaussians = size();
    return n;
}

Backend::NonFinite Backend::remove_non_finite() {
    const Scene s = scene();
    DensifyPlan plan;
    plan.prune.assign(s.size(), 0);
    NonFinite found;
    auto mark = [&](const std::vector<float>& v, std::size_t per) {
        for (std::size_t j = 0; j < v.size(); ++j)
            if (!std::isfinite(v[j])) plan.prune[j / per] = 1, ++found.values;
    };
    mark(s.means, 3);
    mark(s.log_scales, 3);
    mark(s.quats, 4);
    mark(s.opacity_logits, 1);
    mark(s.sh, std::size_t(s.sh_coeffs()) * 3);
    found.gaussians = std::size_t(std::count(plan.prune.begin(), plan.prune.end(), 1));
    if (found.gaussians > 0) densify(plan);
    return found;
}

}  // namespace radiant
