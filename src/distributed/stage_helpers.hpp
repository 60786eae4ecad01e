#pragma once
// What the CPU stages and the single-process reference step share (layer-private).
#include "radiant/core/image.hpp"
#include "radiant/distributed/gaussian_parallel.hpp"
#include "radiant/render/grads.hpp"
#include "radiant/train/densify.hpp"
#include "wire.hpp"

namespace radiant::distributed {

inline void add_grads(SceneGrads& total, const SceneGrads& g) {
    auto sum = [](std::vector<float>& a, const std::vector<float>& b) {
        for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
    };
    sum(total.means, g.means);
    sum(total.log_scales, g.log_scales);
    sum(total.quats, g.quats);
    sum(total.opacity_logits, g.opacity_logits);
    sum(total.sh, g.sh);
}

// The CPU backend's sums (DensifyStats::add_view), sized to the share when it is new or has changed.
inline void add_stats(DensifyStats* stats, const SceneGrads& g, const std::vector<std::int32_t>& radii) {
    if (stats == nullptr) return;
    if (stats->grad_accum.size() != g.size()) stats->reset(g.size());
    stats->add_view(g, radii);
}

// The loss of a render and ∂(batch loss)/∂render: each view weighs 1/B in the batch's mean.
double view_loss(const Image<float>& rgb, const BatchView& view, const BatchStepInput& in,
                 Image<float>& v_rgb);

}  // namespace radiant::distributed
