#include "radiant/train/adam.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "radiant/core/error.hpp"
#include "radiant/train/schedule.hpp"
#include "support/random_scene.hpp"

namespace radiant {
namespace {

Scene one_gaussian() {
    Scene s;
    s.sh_degree = 1;
    s.resize(1);
    s.quats = {1, 0, 0, 0};
    return s;
}

TEST(Adam, MatchesAHandComputation) {
    Scene p = one_gaussian();
    p.means = {1.0f, 2.0f, 3.0f};
    SceneGrads g;
    g.resize_like(SceneT<float>(p));
    AdamState st;
    st.reset_like(p);
    LearningRates lr;
    lr.means = 0.1;
    AdamConfig c;
    c.eps = 1e-8;
    // step 1: m = 0.1 g, v = 0.001 g²; m̂ = g, v̂ = g² → Δ = lr·g/(|g| + ε)
    g.means = {0.5f, -2.0f, 0.0f};
    adam_step(p, g, st, lr, c);
    EXPECT_NEAR(p.means[0], 1.0 - 0.1 * 0.5 / (0.5 + 1e-8), 1e-6);
    EXPECT_NEAR(p.means[1], 2.0 + 0.1, 1e-6);
    EXPECT_FLOAT_EQ(p.means[2], 3.0f);
    // step 2 with g = 0.25 on x: m = 0.9·0.05 + 0.1·0.25 = 0.07, v = 0.999·0.00025 + 0.001·0.0625
    g.means = {0.25f, 0.0f, 0.0f};
    const double x1 = p.means[0];
    adam_step(p, g, st, lr, c);
    const double m = 0.07, v = 0.999 * 0.00025 + 0.001 * 0.0625;
    const double mh = m / (1 - 0.81), vh = v / (1 - 0.999 * 0.999);
    EXPECT_NEAR(p.means[0], x1 - 0.1 * mh / (std::sqrt(vh) + 1e-8), 1e-6);
    EXPECT_EQ(st.step, 2);
}

TEST(Adam, ClipBoundsAndNonFiniteGuards) {
    Scene p = one_gaussian();
    SceneGrads g;
    g.resize_like(p);
    AdamState st;
    st.reset_like(p);
    LearningRates lr;
    lr.log_scales = 1.0;
    lr.opacity_logits = 1.0;
    AdamConfig c;
    c.log_scales.max = 0.5;
    g.log_scales = {-10.0f, NAN, 0.0f};
    g.opacity_logits = {INFINITY};
    const AdamReport r = adam_step(p, g, st, lr, c);
    EXPECT_FLOAT_EQ(p.log_scales[0], 0.5f);  // +1 step, clamped at the bound
    EXPECT_FLOAT_EQ(p.log_scales[1], 0.0f);  // NaN gradient treated as 0
    EXPECT_FLOAT_EQ(p.opacity_logits[0], 0.0f);
    EXPECT_EQ(r.non_finite_grads, 2u);
    EXPECT_TRUE(std::isfinite(st.m.log_scales[1]));
}

TEST(Adam, QuaternionsStayUnitAndShGroupsUseTheirRates) {
    Scene p = one_gaussian();
    SceneGrads g;
    g.resize_like(p);
    g.quats = {0.3f, -1.0f, 0.2f, 0.5f};
    g.sh.assign(12, 1.0f);
    AdamState st;
    st.reset_like(p);
    LearningRates lr;
    lr.quats = 0.1;
    lr.sh_dc = 0.01;
    lr.sh_rest = 0.001;
    adam_step(p, g, st, lr, AdamConfig{});
    double n = 0;
    for (float q : p.quats) n += double(q) * q;
    EXPECT_NEAR(n, 1.0, 1e-6);
    EXPECT_NEAR(p.sh[0], -0.01, 1e-6);  // DC
    EXPECT_NEAR(p.sh[2], -0.01, 1e-6);
    EXPECT_NEAR(p.sh[3], -0.001, 1e-6);  // first higher-order coefficient
}

// Two Gaussians, the first culled by the view (radius 0), with non-zero moments and gradients.
struct TwoGaussianStep {
    Scene p;
    AdamState st;
    SceneGrads g;
    LearningRates lr{0.01, 0.01, 0.01, 0.01, 0.01, 0.001};
    std::vector<std::int32_t> radii{0, 4};
};

TwoGaussianStep two_gaussian_step() {
    TwoGaussianStep t;
    Scene p = one_gaussian();
    p.resize(2);
    p.quats = {0.6f, 0.8f, 0.f, 0.f, 0.f, 0.f, 0.6f, 0.8f};
    t.p = p;
    t.st.reset_like(p);
    for (Scene* x : {&t.st.m, &t.st.v})
        for (std::vector<float>* a : {&x->means, &x->log_scales, &x->quats, &x->opacity_logits, &x->sh})
            for (std::size_t i = 0; i < a->size(); ++i) (*a)[i] = x == &t.st.v ? 0.01f * float(i + 1) : 0.1f;
    t.st.step = 10;
    t.g.resize_like(p);
    for (std::vector<float>* a : {&t.g.means, &t.g.log_scales, &t.g.quats, &t.g.opacity_logits, &t.g.sh})
        a->assign(a->size(), 0.5f);
    return t;
}

// One step of full Adam and one of Adam under `scope` from the same start.
struct ScopedStep {
    Scene full_p, p;
    AdamState full_st, st;
};

ScopedStep step_full_and_scoped(const TwoGaussianStep& t, AdamScope scope) {
    ScopedStep r{t.p, t.p, t.st, t.st};
    AdamConfig scoped;
    scoped.scope = scope;
    adam_step(r.full_p, t.g, r.full_st, t.lr, AdamConfig{});
    adam_step(r.p, t.g, r.st, t.lr, scoped, &t.radii);
    Scene p = t.p;
    AdamState st = t.st;
    EXPECT_THROW(adam_step(p, t.g, st, t.lr, scoped), Error);  // no radii: which are visible?
    return r;
}

// gsplat's visible_adam: a Gaussian the view culled keeps its value and moments (full Adam would still
// move it on its momentum); a visible one steps exactly as under full Adam.
TEST(Adam, VisibleOnlyLeavesCulledGaussiansAsTheyWere) {
    const TwoGaussianStep t = two_gaussian_step();
    const ScopedStep r = step_full_and_scoped(t, AdamScope::visible);
    using test::gaussian_values;
    EXPECT_EQ(gaussian_values(r.p, 0), gaussian_values(t.p, 0));
    EXPECT_EQ(gaussian_values(r.st.m, 0), gaussian_values(t.st.m, 0));
    EXPECT_EQ(gaussian_values(r.st.v, 0), gaussian_values(t.st.v, 0));
    // The momentum moves it under full Adam.
    EXPECT_NE(gaussian_values(r.full_p, 0), gaussian_values(t.p, 0));
    EXPECT_EQ(gaussian_values(r.p, 1), gaussian_values(r.full_p, 1));
    EXPECT_EQ(gaussian_values(r.st.m, 1), gaussian_values(r.full_st.m, 1));
    EXPECT_EQ(gaussian_values(r.st.v, 1), gaussian_values(r.full_st.v, 1));
    EXPECT_NE(gaussian_values(r.p, 1), gaussian_values(t.p, 1));
    EXPECT_EQ(r.st.step, 11);
}

// AdamScope::visible_sh: the culled Gaussian's geometry and opacity step as under full Adam (so it can still
// drift below the pruning threshold), its SH row and SH moments stay; the visible one steps as under full
// Adam.
TEST(Adam, VisibleShScopeKeepsOnlyTheCulledColours) {
    const TwoGaussianStep t = two_gaussian_step();
    const ScopedStep r = step_full_and_scoped(t, AdamScope::visible_sh);
    using test::geometry_values;
    using test::sh_values;
    EXPECT_EQ(sh_values(r.p, 0), sh_values(t.p, 0));
    EXPECT_EQ(sh_values(r.st.m, 0), sh_values(t.st.m, 0));
    EXPECT_EQ(sh_values(r.st.v, 0), sh_values(t.st.v, 0));
    EXPECT_NE(sh_values(r.full_p, 0), sh_values(t.p, 0));
    EXPECT_EQ(geometry_values(r.p, 0), geometry_values(r.full_p, 0));
    EXPECT_EQ(geometry_values(r.st.m, 0), geometry_values(r.full_st.m, 0));
    EXPECT_NE(geometry_values(r.p, 0), geometry_values(t.p, 0));
    EXPECT_EQ(test::gaussian_values(r.p, 1), test::gaussian_values(r.full_p, 1));
    EXPECT_EQ(test::gaussian_values(r.st.v, 1), test::gaussian_values(r.full_st.v, 1));
}

TEST(Schedule, ExponentialAndShDegree) {
    EXPECT_DOUBLE_EQ(exponential_lr(1e-2, 1e-4, 0, 100), 1e-2);
    EXPECT_NEAR(exponential_lr(1e-2, 1e-4, 100, 100), 1e-4, 1e-18);
    EXPECT_NEAR(exponential_lr(1e-2, 1e-4, 50, 100), 1e-3, 1e-15);  // geometric midpoint
    EXPECT_NEAR(exponential_lr(1e-2, 1e-4, 500, 100), 1e-4, 1e-18);
    const LearningRates lr = learning_rates(LrConfig{}, 5.0, 0, 30000);
    EXPECT_NEAR(lr.means, 1.6e-4 * 5.0, 1e-12);
    EXPECT_DOUBLE_EQ(lr.sh_rest, 2.5e-3 / 20);
    EXPECT_EQ(active_sh_degree(0, 3), 0);
    EXPECT_EQ(active_sh_degree(999, 3), 0);
    EXPECT_EQ(active_sh_degree(1000, 3), 1);
    EXPECT_EQ(active_sh_degree(2500, 3), 2);
    EXPECT_EQ(active_sh_degree(10000, 3), 3);
    EXPECT_EQ(active_sh_degree(10000, 1), 1);
}

}  // namespace
}  // namespace radiant
