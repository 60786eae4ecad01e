#pragma once
// Adam over every parameter group (DESIGN.md §1.8, §6): per-group learning rate, optional per-element
// gradient clip and value bounds, non-finite guards, quaternions renormalised after the step.
#include <cstdint>
#include <limits>
#include <vector>

#include "radiant/core/scene.hpp"
#include "radiant/render/grads.hpp"

namespace radiant {

// One learning rate per group; SH DC and SH rest are separate groups (Inria 3DGS).
struct LearningRates {
    double means = 0, log_scales = 0, quats = 0, opacity_logits = 0, sh_dc = 0, sh_rest = 0;
};

struct GroupLimit {
    double grad_clip = 0;  // clamp each gradient element to ±grad_clip (0 = off)
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
};

// Which Gaussians a step's Adam updates. A Gaussian left out keeps its values and moments (its moments do not
// decay, so the result differs from full Adam's); a view of part of a scene then costs Adam only that part.
enum class AdamScope {
    all,      // every Gaussian, every step (torch.optim.Adam)
    visible,  // only those the step's projection kept, radius > 0 (gsplat's visible_adam, Taming 3DGS)
    // Every Gaussian's geometry and opacity; the SH colours (four fifths of Adam's bytes) only of those
    // kept. Unseen Gaussians still drift on their momentum, so densification prunes as under full Adam.
    visible_sh,
};
const char* to_string(AdamScope s);  // "all", "visible", "visible_sh"

struct AdamConfig {
    double beta1 = 0.9, beta2 = 0.999, eps = 1e-15;
    GroupLimit means, log_scales, quats, opacity_logits, sh;
    AdamScope scope = AdamScope::all;
    // Whether the step's radii decide which Gaussians' geometry (means, scales, quaternions, opacity) and
    // which SH are updated.
    bool geometry_visible_only() const { return scope == AdamScope::visible; }
    bool sh_visible_only() const { return scope != AdamScope::all; }
};

// First and second moments, laid out like the parameters; one global step count (as torch.optim.Adam keeps
// per tensor), so Gaussians added by densification start from zero moments under the global bias correction.
struct AdamState {
    Scene m, v;
    std::int64_t step = 0;
    void reset_like(const Scene& s);
};

// Counts of elements, not Gaussians.
struct AdamReport {
    std::size_t non_finite_grads = 0;   // treated as 0
    std::size_t rejected_updates = 0;   // the update would have been non-finite: old value kept
    std::size_t non_finite_params = 0;  // already non-finite before the step: left for the trainer to remove
};

// radii: the step's projected radii, one per Gaussian; read only when config.scope is not all (then
// required).
AdamReport adam_step(Scene& params, const SceneGrads& grads, AdamState& state, const LearningRates& lr,
                     const AdamConfig& config, const std::vector<std::int32_t>* radii = nullptr);

}  // namespace radiant
