#pragma once
// Densification strategies (DESIGN.md §6). A strategy reads statistics and writes a DensifyPlan; the backend
// applies the plan to its parameters, optimizer state and statistics (apply_plan is the host version).
//   default (ADC, Inria 3DGS): clone small Gaussians with a large mean 2D gradient, split large ones in two
//     (scales / 1.6), prune low opacity and too large ones, reset opacities every 3000 steps;
//   mcmc (Kheradmand et al. 2024): a fixed budget — dead Gaussians relocated onto live ones sampled by
//     opacity, new ones added up to the cap, with the paper's opacity/scale correction, plus position noise.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "radiant/core/adc_cap.hpp"
#include "radiant/core/densify_rules.hpp"
#include "radiant/core/scene.hpp"
#include "radiant/train/adam.hpp"

namespace radiant {

// Accumulated over the steps since the last densification [N].
struct DensifyStats {
    std::vector<float> grad_accum;    // Σ ‖∂L/∂mean2d‖ (normalised device units) over visible steps
    std::vector<std::int32_t> denom;  // visible steps
    std::vector<float> max_radii;     // largest footprint radius in pixels
    void reset(std::size_t n);
    // One view's share: for each Gaussian visible in it, its mean-2D gradient norm, one more view, and its
    // footprint radius there (the view's projection). Returns how many were visible.
    std::size_t add_view(const SceneGrads& grads, const std::vector<std::int32_t>& radii);
};

struct DensifyPlan {
    std::vector<std::int32_t> clone;  // append a copy of each
    std::vector<std::int32_t> split;  // replace each by two samples with scales / 1.6
    std::vector<std::uint8_t> prune;  // [N] remove (empty: none)
    double reset_opacity = 0;         // > 0: opacities clamped to at most this, their moments zeroed
    // MCMC: relocate[i] moves Gaussian dead[i] onto source[i]; add appends copies of add_source.
    std::vector<std::int32_t> relocate_dead, relocate_source, add_source;
    std::uint64_t seed = 0;  // split samples
    bool capped = false;     // ADC: max_gaussians held some candidates back
    bool empty() const {
        return clone.empty() && split.empty() && prune.empty() && reset_opacity == 0 &&
               relocate_dead.empty() && add_source.empty();
    }
};

struct AdcConfig {
    long start = 500, stop = 15000, interval = 100;
    double grad_threshold = 2e-4;
    double percent_dense = 0.01;  // clone when max scale ≤ percent_dense · extent, else split
    double min_opacity = 0.005;
    long reset_every = 3000;
    // Pixels, after the first opacity reset; 0 (the default, as gsplat's default recipe) turns it off. Inria
    // 3DGS uses 20: on bonsai that costs 0.4 dB at 30k and 4.5 dB at 7k (bench/RESULTS.md).
    double max_screen_radius = 0;
    double max_world_scale = 0.1;  // × extent, after the first opacity reset
    // At most this many Gaussians after a densification (0: no cap); under the cap the largest mean
    // gradients are densified first (adc_capped_threshold).
    std::size_t max_gaussians = 0;
};

struct McmcConfig {
    long start = 500, stop = 25000, interval = 100;
    std::size_t max_gaussians = 1000000;
    double min_opacity = 0.005;
    double grow_rate = 0.05;
    double noise_lr = 5e5;
    double opacity_reg = 0.01, scale_reg = 0.01;
};

// The ADC thresholds of one densification step.
AdcRule adc_rule(const AdcConfig& config, double extent, long step);

// Each Gaussian's AdcAction bits under `rule` (plan_adc's first half; the Gaussian-parallel trainer takes
// the cap's threshold over every rank's Gaussians before it).
std::vector<std::uint32_t> adc_actions(const Scene& scene, const DensifyStats& stats, const AdcRule& rule);
// The plan that carries out per-Gaussian ADC actions (kAdc* flags).
DensifyPlan adc_plan_of(const std::vector<std::uint32_t>& actions, std::uint64_t seed);
DensifyPlan plan_adc(const Scene& scene, const DensifyStats& stats, const AdcConfig& config, double extent,
                     long step, std::uint64_t seed);
// MCMC's regularisers λ_o·mean(opacity) + λ_s·mean(scale) over a scene of `count` Gaussians, of which `scene`
// holds some (all, or a rank's share): their gradients added to `grads`; returns those Gaussians' part of the
// loss.
double add_mcmc_regularisers(const Scene& scene, SceneGrads& grads, double opacity_reg, double scale_reg,
                             double count);

// Dead Gaussians (opacity ≤ min_opacity) relocated onto live ones and new ones added up to
// mcmc_target_size, both sampled by opacity with counter-based uniforms from `seed` (growth draws start at
// kMcmcGrowCounter), so the CUDA backend draws the same sources.
DensifyPlan plan_mcmc(const Scene& scene, const McmcConfig& config, std::uint64_t seed);
inline std::size_t mcmc_target_size(std::size_t n, const McmcConfig& c) {
    return std::max(n, std::min(c.max_gaussians, std::size_t(double(n) * (1.0 + c.grow_rate))));
}
constexpr std::uint64_t kMcmcGrowCounter = 1ull << 40;

// Gaussian i's entries set to zero (its Adam moments, when `s` holds moments).
void zero_gaussian(Scene& s, std::size_t i);
// Gaussian j of `from` written over Gaussian i of `to`, all five arrays (the same SH degree).
void copy_gaussian(const Scene& from, std::size_t j, Scene& to, std::size_t i);
// MCMC's correction of Gaussian i, the source of `copies` Gaussians in all (itself included): its opacity
// and scales lowered so that the copies together render as it did (mcmc_relocation).
void mcmc_correct_source(Scene& params, std::size_t i, int copies);

// The MCMC correction for a Gaussian duplicated into n copies (n ≥ 1): opacity 1 − (1 − o)^(1/n) and scales
// multiplied by o / Σ_{i=1..n} Σ_{k=0..i−1} C(i−1, k) (−1)^k o_new^(k+1) / √(k+1).
void mcmc_relocation(double opacity, int copies, double& new_opacity, double& scale_factor);

// Applies a plan on the host: parameters, Adam moments (new and reset Gaussians start at zero) and statistics
// (reset to zero at the new size).
// A split Gaussian's two draws are keyed by (plan.seed, its index) — or by draw_keys[index] when given (the
// Gaussian-parallel trainer's global ids, so that a Gaussian draws the same wherever it lives).
void apply_plan(const DensifyPlan& plan, Scene& params, AdamState& adam, DensifyStats& stats,
                const std::vector<std::uint64_t>* draw_keys = nullptr);

// MCMC position noise: μ += Σ·z · sigmoid(100 (1 − o − 0.995)) · scale, z ~ N(0, I) from (seed, Gaussian):
// the Gaussian's index, or keys[index] when given (the Gaussian-parallel trainer's global ids).
void add_position_noise(Scene& params, double scale, std::uint64_t seed,
                        const std::vector<std::uint64_t>* keys = nullptr);

}  // namespace radiant
