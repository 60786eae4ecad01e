#include "radiant/train/densify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "radiant/core/covariance.hpp"
#include "radiant/core/densify_rules.hpp"
#include "radiant/core/error.hpp"
#include "radiant/core/random.hpp"

namespace radiant {

void DensifyStats::reset(std::size_t n) {
    grad_accum.assign(n, 0.f);
    denom.assign(n, 0);
    max_radii.assign(n, 0.f);
}

std::size_t DensifyStats::add_view(const SceneGrads& g, const std::vector<std::int32_t>& radii) {
    RADIANT_CHECK(g.size() == grad_accum.size() && radii.size() == grad_accum.size(),
                  "densify statistics, gradients and radii disagree on the Gaussian count");
    std::size_t visible = 0;
    for (std::size_t i = 0; i < grad_accum.size(); ++i) {
        if (!g.visible[i]) continue;
        ++visible;
        grad_accum[i] += g.mean2d_grad_norms[i];
        denom[i] += 1;
        max_radii[i] = std::max(max_radii[i], float(radii[i]));
    }
    return visible;
}

namespace {

// Copies Gaussian `from` of `src` to the end of `dst` (all five arrays).
void append_copy(const Scene& src, std::size_t from, Scene& dst) {
    const std::size_t k = std::size_t(src.sh_coeffs()) * 3;
    for (int c = 0; c < 3; ++c) dst.means.push_back(float(src.means[3 * from + std::size_t(c)]));
    for (int c = 0; c < 3; ++c) dst.log_scales.push_back(float(src.log_scales[3 * from + std::size_t(c)]));
    for (int c = 0; c < 4; ++c) dst.quats.push_back(float(src.quats[4 * from + std::size_t(c)]));
    dst.opacity_logits.push_back(float(src.opacity_logits[from]));
    // src may be dst: copy the slice out before growing the vector.
    const std::vector<float> sh(src.sh.begin() + std::ptrdiff_t(from * k),
                                src.sh.begin() + std::ptrdiff_t(from * k + k));
    dst.sh.insert(dst.sh.end(), sh.begin(), sh.end());
}

void append_zero(Scene& s) {
    s.means.insert(s.means.end(), 3, 0.f);
    s.log_scales.insert(s.log_scales.end(), 3, 0.f);
    s.quats.insert(s.quats.end(), 4, 0.f);
    s.opacity_logits.push_back(0.f);
    s.sh.insert(s.sh.end(), std::size_t(s.sh_coeffs()) * 3, 0.f);
}

}  // namespace

void zero_gaussian(Scene& s, std::size_t i) {
    const std::size_t k = std::size_t(s.sh_coeffs()) * 3;
    std::fill_n(s.means.begin() + std::ptrdiff_t(3 * i), 3, 0.f);
    std::fill_n(s.log_scales.begin() + std::ptrdiff_t(3 * i), 3, 0.f);
    std::fill_n(s.quats.begin() + std::ptrdiff_t(4 * i), 4, 0.f);
    s.opacity_logits[i] = 0.f;
    std::fill_n(s.sh.begin() + std::ptrdiff_t(i * k), k, 0.f);
}

void copy_gaussian(const Scene& from, std::size_t j, Scene& to, std::size_t i) {
    const std::size_t k = std::size_t(to.sh_coeffs()) * 3;
    std::copy_n(from.means.begin() + std::ptrdiff_t(3 * j), 3, to.means.begin() + std::ptrdiff_t(3 * i));
    std::copy_n(from.log_scales.begin() + std::ptrdiff_t(3 * j), 3,
                to.log_scales.begin() + std::ptrdiff_t(3 * i));
    std::copy_n(from.quats.begin() + std::ptrdiff_t(4 * j), 4, to.quats.begin() + std::ptrdiff_t(4 * i));
    to.opacity_logits[i] = from.opacity_logits[j];
    std::copy_n(from.sh.begin() + std::ptrdiff_t(j * k), k, to.sh.begin() + std::ptrdiff_t(i * k));
}

void mcmc_correct_source(Scene& p, std::size_t i, int copies) {
    double o_new, factor;
    mcmc_relocation(sigmoid(double(p.opacity_logits[i])), copies, o_new, factor);
    o_new = std::clamp(o_new, 0.005, 1.0 - 1e-6);
    p.opacity_logits[i] = float(logit(o_new));
    for (int c = 0; c < 3; ++c) p.log_scales[3 * i + std::size_t(c)] += float(std::log(factor));
}

AdcRule adc_rule(const AdcConfig& c, double extent, long step) {
    AdcRule r;
    r.grad_threshold = float(c.grad_threshold);
    r.clone_max_scale = float(c.percent_dense * extent);
    r.min_opacity = float(c.min_opacity);
    r.big_prune = step > c.reset_every;
    r.max_screen_radius = float(c.max_screen_radius);
    r.max_world_scale = float(c.max_world_scale * extent);
    return r;
}

std::vector<std::uint32_t> adc_actions(const Scene& s, const DensifyStats& st, const AdcRule& rule) {
    std::vector<std::uint32_t> actions(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        const float max_log_scale =
            std::max({s.log_scales[3 * i], s.log_scales[3 * i + 1], s.log_scales[3 * i + 2]});
        actions[i] = adc_action(st.grad_accum[i], st.denom[i], st.max_radii[i], max_log_scale,
                                s.opacity_logits[i], rule);
    }
    return actions;
}

DensifyPlan plan_adc(const Scene& s, const DensifyStats& st, const AdcConfig& c, double extent, long step,
                     std::uint64_t seed) {
    RADIANT_CHECK(st.grad_accum.size() == s.size(), "densify statistics do not match the scene");
    AdcRule rule = adc_rule(c, extent, step);
    std::vector<std::uint32_t> actions = adc_actions(s, st, rule);
    bool capped = false;
    if (c.max_gaussians > 0) {
        const float t =
            adc_capped_threshold(st.grad_accum, st.denom, actions, rule.grad_threshold, c.max_gaussians);
        if (t != rule.grad_threshold) {
            rule.grad_threshold = t;
            capped = true;
            actions = adc_actions(s, st, rule);
        }
    }
    DensifyPlan plan = adc_plan_of(actions, seed);
    plan.capped = capped;
    return plan;
}

DensifyPlan adc_plan_of(const std::vector<std::uint32_t>& actions, std::uint64_t seed) {
    DensifyPlan plan;
    plan.seed = seed;
    plan.prune.assign(actions.size(), 0);
    for (std::size_t i = 0; i < actions.size(); ++i) {
        const std::uint32_t a = actions[i];
        if (a & kAdcClone) plan.clone.push_back(std::int32_t(i));
        if (a & kAdcSplit) plan.split.push_back(std::int32_t(i));
        plan.prune[i] = (a & kAdcPrune) ? 1 : 0;
    }
    return plan;
}

double add_mcmc_regularisers(const Scene& p, SceneGrads& g, double opacity_reg, double scale_reg,
                             double count) {
    double loss = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const double o = sigmoid(double(p.opacity_logits[i]));
        g.opacity_logits[i] += float(opacity_reg / count * o * (1 - o));
        loss += opacity_reg * o / count;
        for (int c = 0; c < 3; ++c) {
            const double s = std::exp(double(p.log_scales[3 * i + std::size_t(c)]));
            g.log_scales[3 * i + std::size_t(c)] += float(scale_reg / (3.0 * count) * s);
            loss += scale_reg * s / (3.0 * count);
        }
    }
    return loss;
}

void mcmc_relocation(double opacity, int copies, double& new_opacity, double& scale_factor) {
    mcmc_correction(opacity, copies, new_opacity, scale_factor);
}

std::vector<std::int32_t> sample_by_opacity(const std::vector<double>& cdf, std::size_t n, std::uint64_t seed,
                                            std::uint64_t counter0) {
    std::vector<std::int32_t> out;
    if (cdf.empty() || !(cdf.back() > 0)) return out;
    for (std::size_t k = 0; k < n; ++k) {
        const double u = uniform01(seed, counter0 + k) * cdf.back();
        const std::size_t i = std::size_t(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
        out.push_back(std::int32_t(std::min(i, cdf.size() - 1)));
    }
    return out;
}

DensifyPlan plan_mcmc(const Scene& s, const McmcConfig& c, std::uint64_t seed) {
    DensifyPlan plan;
    plan.seed = seed;
    const std::size_t n = s.size();
    // Inclusive prefix sums of the live opacities and of all opacities: inverse-CDF sampling with
    // counter-based uniforms, the same draws the CUDA backend makes.
    std::vector<double> alive_cdf(n), all_cdf(n);
    double alive_sum = 0, all_sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float o = sigmoid(s.opacity_logits[i]);
        const bool dead = o <= float(c.min_opacity);
        if (dead) plan.relocate_dead.push_back(std::int32_t(i));
        alive_sum += dead ? 0.0 : double(o);
        all_sum += double(o);
        alive_cdf[i] = alive_sum;
        all_cdf[i] = all_sum;
    }
    plan.relocate_source = sample_by_opacity(alive_cdf, plan.relocate_dead.size(), seed, 0);
    if (plan.relocate_source.empty()) plan.relocate_dead.clear();
    const std::size_t target = mcmc_target_size(n, c);
    if (target > n) plan.add_source = sample_by_opacity(all_cdf, target - n, seed, kMcmcGrowCounter);
    return plan;
}

void apply_plan(const DensifyPlan& plan, Scene& p, AdamState& adam, DensifyStats& stats,
                const std::vector<std::uint64_t>* draw_keys) {
    RADIANT_CHECK(draw_keys == nullptr || draw_keys->size() == p.size(),
                  "apply_plan: one draw key per Gaussian");
    const std::size_t n0 = p.size();
    for (auto* list :
         {&plan.clone, &plan.split, &plan.relocate_dead, &plan.relocate_source, &plan.add_source})
        for (std::int32_t i : *list)
            RADIANT_CHECK(i >= 0 && std::size_t(i) < n0,
                          fmt::format("densify plan index {} out of range", i));
    RADIANT_CHECK(plan.prune.empty() || plan.prune.size() == n0,
                  "densify plan prune mask has the wrong size");

    if (plan.reset_opacity > 0) {
        const float cap = float(logit(plan.reset_opacity));
        for (std::size_t i = 0; i < n0; ++i) {
            p.opacity_logits[i] = std::min(p.opacity_logits[i], cap);
            adam.m.opacity_logits[i] = adam.v.opacity_logits[i] = 0.f;
        }
    }

    // MCMC: relocation and growth share the correction, counted per source over both lists.
    if (!plan.relocate_dead.empty() || !plan.add_source.empty()) {
        std::vector<int> copies(n0, 1);
        for (std::int32_t s : plan.relocate_source) ++copies[std::size_t(s)];
        for (std::int32_t s : plan.add_source) ++copies[std::size_t(s)];
        std::vector<std::uint8_t> done(n0, 0);
        auto correct = [&](std::size_t s) {
            if (done[s]) return;
            done[s] = 1;
            mcmc_correct_source(p, s, copies[s]);
            zero_gaussian(adam.m, s);
            zero_gaussian(adam.v, s);
        };
        for (std::int32_t s : plan.relocate_source) correct(std::size_t(s));
        for (std::int32_t s : plan.add_source) correct(std::size_t(s));
        const Scene snapshot = p;
        for (std::size_t i = 0; i < plan.relocate_dead.size(); ++i) {
            const std::size_t d = std::size_t(plan.relocate_dead[i]),
                              s = std::size_t(plan.relocate_source[i]);
            copy_gaussian(snapshot, s, p, d);
            zero_gaussian(adam.m, d);
            zero_gaussian(adam.v, d);
        }
        for (std::int32_t s : plan.add_source) {
            append_copy(snapshot, std::size_t(s), p);
            append_zero(adam.m);
            append_zero(adam.v);
        }
    }

    // ADC: every Gaussian's outputs in its place, in index order — a split Gaussian becomes its two
    // children; any other stays unless pruned and is followed by its clone. The CUDA backend writes the
    // same layout, so both number the Gaussians alike (a later split's draws depend on the index).
    if (!plan.clone.empty() || !plan.split.empty() || !plan.prune.empty()) {
        std::vector<std::uint32_t> action(p.size(), 0);
        for (std::int32_t i : plan.clone) action[std::size_t(i)] |= kAdcClone;
        for (std::int32_t i : plan.split) action[std::size_t(i)] |= kAdcSplit;
        for (std::size_t i = 0; i < plan.prune.size(); ++i)
            if (plan.prune[i]) action[i] |= kAdcPrune;
        Scene q, qm, qv;
        q.sh_degree = qm.sh_degree = qv.sh_degree = p.sh_degree;
        for (std::size_t i = 0; i < p.size(); ++i) {
            const std::uint32_t a = action[i];
            if (a & kAdcSplit) {
                for (int copy = 0; copy < 2; ++copy) {
                    append_copy(p, i, q);
                    const std::size_t j = q.size() - 1;
                    Vec3<float> mean, log_scale;
                    split_child(p.mean(i), p.log_scale(i), p.quat(i), plan.seed,
                                draw_keys ? (*draw_keys)[i] : std::uint64_t(i), copy, mean, log_scale);
                    for (int c = 0; c < 3; ++c) {
                        q.means[3 * j + std::size_t(c)] = mean[c];
                        q.log_scales[3 * j + std::size_t(c)] = log_scale[c];
                    }
                    append_zero(qm);
                    append_zero(qv);
                }
                continue;
            }
            if (!(a & kAdcPrune)) {
                append_copy(p, i, q);
                append_copy(adam.m, i, qm);
                append_copy(adam.v, i, qv);
            }
            if (a & kAdcClone) {
                append_copy(p, i, q);
                append_zero(qm);
                append_zero(qv);
            }
        }
        p = std::move(q);
        adam.m = std::move(qm);
        adam.v = std::move(qv);
    }
    stats.reset(p.size());
}

void add_position_noise(Scene& p, double scale, std::uint64_t seed, const std::vector<std::uint64_t>* keys) {
    RADIANT_CHECK(keys == nullptr || keys->size() == p.size(), "add_position_noise: one key per Gaussian");
    for (std::size_t i = 0; i < p.size(); ++i) {
        const Vec3<float> d = mcmc_noise_offset(p.log_scale(i), p.quat(i), p.opacity_logits[i], float(scale),
                                                seed, keys ? (*keys)[i] : std::uint64_t(i));
        for (int c = 0; c < 3; ++c) p.means[3 * i + std::size_t(c)] += d[c];
    }
}

}  // namespace radiant
