#pragma once
// What the stages (CPU and GPU) and the single-process reference step share (layer-private).
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

// Where each rank's part starts in what arrived for a view (counts[s] from rank s, laid in rank order), and
// one past the last.
inline std::vector<std::size_t> offsets_of(const std::vector<std::size_t>& counts) {
    std::vector<std::size_t> from(counts.size() + 1, 0);
    for (std::size_t s = 0; s < counts.size(); ++s) from[s + 1] = from[s] + counts[s];
    return from;
}

// The loss of a render and ∂(batch loss)/∂render: each view weighs 1/B in the batch's mean.
double view_loss(const Image<float>& rgb, const BatchView& view, const BatchStepInput& in,
                 Image<float>& v_rgb);

}  // namespace radiant::distributed
