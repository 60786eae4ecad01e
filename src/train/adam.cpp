#include "radiant/train/adam.hpp"

#include <fmt/format.h>

#include <cmath>

#include "radiant/core/adam_update.hpp"
#include "radiant/core/error.hpp"

namespace radiant {

const char* to_string(AdamScope s) {
    switch (s) {
        case AdamScope::visible:
            return "visible";
        case AdamScope::visible_sh:
            return "visible_sh";
        case AdamScope::all:
            break;
    }
    return "all";
}

void AdamState::reset_like(const Scene& s) {
    m = s;
    v = s;
    for (Scene* x : {&m, &v}) {
        std::fill(x->means.begin(), x->means.end(), 0.f);
        std::fill(x->log_scales.begin(), x->log_scales.end(), 0.f);
        std::fill(x->quats.begin(), x->quats.end(), 0.f);
        std::fill(x->opacity_logits.begin(), x->opacity_logits.end(), 0.f);
        std::fill(x->sh.begin(), x->sh.end(), 0.f);
    }
    step = 0;
}

namespace {

struct Counters {
    std::size_t bad_grads = 0, rejected = 0, bad_params = 0;
};

// Which Gaussians a step updates: all, or those with a positive radius. Elements are grouped `per` to a
// Gaussian.
struct Updated {
    const std::vector<std::int32_t>* radii;  // null: all
    bool operator()(std::size_t element, std::size_t per) const {
        return radii == nullptr || (*radii)[element / per] > 0;
    }
};

template <class LrOf>
void update(std::vector<float>& p, const std::vector<float>& g, std::vector<float>& m, std::vector<float>& v,
            std::size_t per, Updated updated, LrOf lr_of, const GroupLimit& limit, const AdamConfig& c,
            double bias1, double bias2, Counters& count) {
    AdamElementConfig e{0.f,          float(c.beta1),         float(c.beta2),   float(c.eps),    float(bias1),
                        float(bias2), float(limit.grad_clip), float(limit.min), float(limit.max)};
    const std::int64_t n = std::int64_t(p.size());
    std::size_t bad_g = 0, rejected = 0, bad_p = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad_g, rejected, bad_p) firstprivate(e)
    for (std::int64_t j = 0; j < n; ++j) {
        const std::size_t i = std::size_t(j);
        if (!updated(i, per)) continue;
        e.lr = float(lr_of(i));
        const int flags = adam_update(p[i], g[i], m[i], v[i], e);
        bad_g += (flags & kAdamBadGrad) != 0;
        rejected += (flags & kAdamRejected) != 0;
        bad_p += (flags & kAdamBadParam) != 0;
    }
    count.bad_grads += bad_g;
    count.rejected += rejected;
    count.bad_params += bad_p;
}

}  // namespace

AdamReport adam_step(Scene& p, const SceneGrads& g, AdamState& s, const LearningRates& lr,
                     const AdamConfig& c, const std::vector<std::int32_t>* radii) {
    RADIANT_CHECK(
        g.means.size() == p.means.size() && g.sh.size() == p.sh.size() && s.m.sh.size() == p.sh.size() &&
            s.m.means.size() == p.means.size(),
        fmt::format("adam_step: {} parameters, {} gradients, {} moments", p.size(), g.size(), s.m.size()));
    RADIANT_CHECK(c.scope == AdamScope::all || (radii != nullptr && radii->size() == p.size()),
                  fmt::format("adam_step: updating visible Gaussians only needs {} radii, got {}", p.size(),
                              radii ? radii->size() : 0));
    const Updated updated{c.geometry_visible_only() ? radii : nullptr};
    const Updated sh_updated{c.sh_visible_only() ? radii : nullptr};
    ++s.step;
    const double bias1 = 1 - std::pow(c.beta1, double(s.step)), bias2 = 1 - std::pow(c.beta2, double(s.step));
    Counters count;
    auto constant = [](double v) { return [v](std::size_t) { return v; }; };
    update(p.means, g.means, s.m.means, s.v.means, 3, updated, constant(lr.means), c.means, c, bias1, bias2,
           count);
    update(p.log_scales, g.log_scales, s.m.log_scales, s.v.log_scales, 3, updated, constant(lr.log_scales),
           c.log_scales, c, bias1, bias2, count);
    update(p.quats, g.quats, s.m.quats, s.v.quats, 4, updated, constant(lr.quats), c.quats, c, bias1, bias2,
           count);
    update(p.opacity_logits, g.opacity_logits, s.m.opacity_logits, s.v.opacity_logits, 1, updated,
           constant(lr.opacity_logits), c.opacity_logits, c, bias1, bias2, count);
    const std::size_t k = std::size_t(p.sh_coeffs());
    update(
        p.sh, g.sh, s.m.sh, s.v.sh, 3 * k, sh_updated,
        [&](std::size_t i) { return (i / 3) % k == 0 ? lr.sh_dc : lr.sh_rest; }, c.sh, c, bias1, bias2,
        count);
    // Quaternions are normalised in the forward anyway; keeping them unit keeps Adam's steps well scaled.
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (!updated(i, 1)) continue;
        float* q = p.quats.data() + 4 * i;
        const float n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (n > 0 && std::isfinite(n))
            for (int j = 0; j < 4; ++j) q[j] /= n;
        else
            q[0] = 1, q[1] = q[2] = q[3] = 0;
    }
    return {count.bad_grads, count.rejected, count.bad_params};
}

}  // namespace radiant
