#include "radiant/train/densify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "radiant/core/covariance.hpp"
#include "radiant/core/error.hpp"

namespace radiant {

void DensifyStats::reset(std::size_t n) {
    grad_accum.assign(n, 0.f);
    denom.assign(n, 0);
    max_radii.assign(n, 0.f);
}

namespace {

float max_scale(const Scene& s, std::size_t i) {
    return std::exp(std::max({s.log_scales[3 * i], s.log_scales[3 * i + 1], s.log_scales[3 * i + 2]}));
}

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

void zero_at(Scene& s, std::size_t i) {
    const std::size_t k = std::size_t(s.sh_coeffs()) * 3;
    std::fill_n(s.means.begin() + std::ptrdiff_t(3 * i), 3, 0.f);
    std::fill_n(s.log_scales.begin() + std::ptrdiff_t(3 * i), 3, 0.f);
    std::fill_n(s.quats.begin() + std::ptrdiff_t(4 * i), 4, 0.f);
    s.opacity_logits[i] = 0.f;
    std::fill_n(s.sh.begin() + std::ptrdiff_t(i * k), k, 0.f);
}

// Keeps the Gaussians whose mask entry is 0.
void compact(Scene& s, const std::vector<std::uint8_t>& remove) {
    const std::size_t k = std::size_t(s.sh_coeffs()) * 3;
    std::size_t out = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (remove[i]) continue;
        if (out != i) {
            std::copy_n(s.means.begin() + std::ptrdiff_t(3 * i), 3,
                        s.means.begin() + std::ptrdiff_t(3 * out));
            std::copy_n(s.log_scales.begin() + std::ptrdiff_t(3 * i), 3,
                        s.log_scales.begin() + std::ptrdiff_t(3 * out));
            std::copy_n(s.quats.begin() + std::ptrdiff_t(4 * i), 4,
                        s.quats.begin() + std::ptrdiff_t(4 * out));
            s.opacity_logits[out] = s.opacity_logits[i];
            std::copy_n(s.sh.begin() + std::ptrdiff_t(i * k), k, s.sh.begin() + std::ptrdiff_t(out * k));
        }
        ++out;
    }
    s.resize(out);
}

// Weighted sampling with replacement (probabilities ∝ weights), as torch.multinomial.
std::vector<std::int32_t> sample_by_weight(const std::vector<double>& weights,
                                           const std::vector<std::int32_t>& ids, std::size_t n,
                                           std::mt19937_64& rng) {
    std::vector<std::int32_t> out;
    if (ids.empty() || n == 0) return out;
    std::discrete_distribution<std::size_t> pick(weights.begin(), weights.end());
    for (std::size_t i = 0; i < n; ++i) out.push_back(ids[pick(rng)]);
    return out;
}

}  // namespace

DensifyPlan plan_adc(const Scene& s, const DensifyStats& st, const AdcConfig& c, double extent, long step,
                     std::uint64_t seed) {
    DensifyPlan plan;
    plan.seed = seed;
    const std::size_t n = s.size();
    RADIANT_CHECK(st.grad_accum.size() == n, "densify statistics do not match the scene");
    const bool big_prune = step > c.reset_every;
    plan.prune.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const double grad = st.denom[i] > 0 ? st.grad_accum[i] / st.denom[i] : 0.0;
        const double scale = max_scale(s, i);
        if (grad >= c.grad_threshold) {
            if (scale <= c.percent_dense * extent)
                plan.clone.push_back(std::int32_t(i));
            else
                plan.split.push_back(std::int32_t(i));
        }
        bool prune = sigmoid(double(s.opacity_logits[i])) < c.min_opacity;
        if (big_prune)
            prune = prune || st.max_radii[i] > c.max_screen_radius || scale > c.max_world_scale * extent;
        plan.prune[i] = prune;
    }
    return plan;
}

void mcmc_relocation(double opacity, int copies, double& new_opacity, double& scale_factor) {
    const int n = std::clamp(copies, 1, 51);
    new_opacity = 1.0 - std::pow(1.0 - opacity, 1.0 / n);
    double denom = 0;
    for (int i = 1; i <= n; ++i) {
        double binom = 1;  // C(i−1, k)
        for (int k = 0; k <= i - 1; ++k) {
            denom += binom * (k % 2 ? -1.0 : 1.0) * std::pow(new_opacity, k + 1) / std::sqrt(k + 1.0);
            binom = binom * (i - 1 - k) / (k + 1);
        }
    }
    scale_factor = opacity / denom;
}

DensifyPlan plan_mcmc(const Scene& s, const McmcConfig& c, std::mt19937_64& rng) {
    DensifyPlan plan;
    plan.seed = rng();
    std::vector<std::int32_t> dead, alive;
    std::vector<double> alive_w;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const double o = sigmoid(double(s.opacity_logits[i]));
        if (o <= c.min_opacity) {
            dead.push_back(std::int32_t(i));
        } else {
            alive.push_back(std::int32_t(i));
            alive_w.push_back(o);
        }
    }
    plan.relocate_dead = dead;
    plan.relocate_source = sample_by_weight(alive_w, alive, dead.size(), rng);
    if (plan.relocate_source.empty()) plan.relocate_dead.clear();
    const std::size_t target = std::min(c.max_gaussians, std::size_t(double(s.size()) * (1.0 + c.grow_rate)));
    if (target > s.size()) {
        std::vector<std::int32_t> ids(s.size());
        std::vector<double> w(s.size());
        std::iota(ids.begin(), ids.end(), 0);
        for (std::size_t i = 0; i < s.size(); ++i) w[i] = sigmoid(double(s.opacity_logits[i]));
        plan.add_source = sample_by_weight(w, ids, target - s.size(), rng);
    }
    return plan;
}

void apply_plan(const DensifyPlan& plan, Scene& p, AdamState& adam, DensifyStats& stats) {
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
            double o_new, factor;
            mcmc_relocation(sigmoid(double(p.opacity_logits[s])), copies[s], o_new, factor);
            o_new = std::clamp(o_new, 0.005, 1.0 - 1e-6);
            p.opacity_logits[s] = float(logit(o_new));
            for (int c = 0; c < 3; ++c) p.log_scales[3 * s + std::size_t(c)] += float(std::log(factor));
            zero_at(adam.m, s);
            zero_at(adam.v, s);
        };
        for (std::int32_t s : plan.relocate_source) correct(std::size_t(s));
        for (std::int32_t s : plan.add_source) correct(std::size_t(s));
        const Scene snapshot = p;
        for (std::size_t i = 0; i < plan.relocate_dead.size(); ++i) {
            const std::size_t d = std::size_t(plan.relocate_dead[i]),
                              s = std::size_t(plan.relocate_source[i]);
            const std::size_t k = std::size_t(p.sh_coeffs()) * 3;
            std::copy_n(snapshot.means.begin() + std::ptrdiff_t(3 * s), 3,
                        p.means.begin() + std::ptrdiff_t(3 * d));
            std::copy_n(snapshot.log_scales.begin() + std::ptrdiff_t(3 * s), 3,
                        p.log_scales.begin() + std::ptrdiff_t(3 * d));
            std::copy_n(snapshot.quats.begin() + std::ptrdiff_t(4 * s), 4,
                        p.quats.begin() + std::ptrdiff_t(4 * d));
            p.opacity_logits[d] = snapshot.opacity_logits[s];
            std::copy_n(snapshot.sh.begin() + std::ptrdiff_t(s * k), k, p.sh.begin() + std::ptrdiff_t(d * k));
            zero_at(adam.m, d);
            zero_at(adam.v, d);
        }
        for (std::int32_t s : plan.add_source) {
            append_copy(snapshot, std::size_t(s), p);
            append_zero(adam.m);
            append_zero(adam.v);
        }
    }

    for (std::int32_t i : plan.clone) {
        append_copy(p, std::size_t(i), p);
        append_zero(adam.m);
        append_zero(adam.v);
    }
    std::vector<std::uint8_t> remove(p.size(), 0);
    if (!plan.prune.empty()) std::copy(plan.prune.begin(), plan.prune.end(), remove.begin());
    std::mt19937_64 rng(plan.seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    for (std::int32_t i : plan.split) {
        const std::size_t g = std::size_t(i);
        const Vec3<double> ls = cast<double>(p.log_scale(g));
        const Mat3<double> r = quat_to_rotmat(cast_quat(p.quat(g)));
        const Vec3<double> s = exp3(ls);
        for (int copy = 0; copy < 2; ++copy) {
            append_copy(p, g, p);
            const std::size_t j = p.size() - 1;
            const Vec3<double> z{normal(rng) * s.x, normal(rng) * s.y, normal(rng) * s.z};
            const Vec3<double> offset = r * z;
            for (int c = 0; c < 3; ++c) {
                p.means[3 * j + std::size_t(c)] += float(offset[c]);
                p.log_scales[3 * j + std::size_t(c)] = float(ls[c] - std::log(1.6));
            }
            append_zero(adam.m);
            append_zero(adam.v);
            remove.push_back(0);
        }
        remove[g] = 1;
    }
    remove.resize(p.size(), 0);
    compact(p, remove);
    compact(adam.m, remove);
    compact(adam.v, remove);
    stats.reset(p.size());
}

void add_position_noise(Scene& p, double scale, std::mt19937_64& rng) {
    std::normal_distribution<double> normal(0.0, 1.0);
    for (std::size_t i = 0; i < p.size(); ++i) {
        const double o = sigmoid(double(p.opacity_logits[i]));
        const double gate = 1.0 / (1.0 + std::exp(-100.0 * (1.0 - o - 0.995)));
        const Mat3<double> cov = covariance(cast<double>(p.log_scale(i)), cast_quat(p.quat(i)));
        const Vec3<double> z{normal(rng), normal(rng), normal(rng)};
        const Vec3<double> d = (gate * scale) * (cov * z);
        for (int c = 0; c < 3; ++c) p.means[3 * i + std::size_t(c)] += float(d[c]);
    }
}

}  // namespace radiant
