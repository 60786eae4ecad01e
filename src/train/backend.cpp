// The host densification path of Backend: download, plan with the shared rules, apply. Backends that keep
// their parameters elsewhere (CUDA) replace these with their own.
#include "radiant/train/backend.hpp"

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

}  // namespace radiant
