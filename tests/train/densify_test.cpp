#include "radiant/train/densify.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace radiant {
namespace {

// n Gaussians whose every parameter and moment encodes its index, so alignment is visible after edits.
struct Tagged {
    Scene p;
    AdamState adam;
    DensifyStats stats;
};

Tagged tagged(int n) {
    Tagged t;
    t.p.sh_degree = 1;
    t.p.resize(std::size_t(n));
    for (int i = 0; i < n; ++i) {
        const std::size_t g = std::size_t(i);
        for (int c = 0; c < 3; ++c) {
            t.p.means[3 * g + std::size_t(c)] = float(i);
            t.p.log_scales[3 * g + std::size_t(c)] = std::log(0.01f * float(i + 1));
        }
        t.p.quats[4 * g] = 1;
        t.p.opacity_logits[g] = float(i) * 0.1f;
        for (int k = 0; k < 12; ++k) t.p.sh[12 * g + std::size_t(k)] = float(i);
    }
    t.adam.reset_like(t.p);
    for (int i = 0; i < n; ++i) {
        const std::size_t g = std::size_t(i);
        t.adam.m.means[3 * g] = float(i) + 0.5f;
        t.adam.v.opacity_logits[g] = float(i) + 0.25f;
        t.adam.m.sh[12 * g + 5] = float(i) + 0.75f;
    }
    t.stats.reset(std::size_t(n));
    return t;
}

void expect_state_of(const Tagged& t, std::size_t at, int original) {
    EXPECT_FLOAT_EQ(t.p.means[3 * at], float(original)) << at;
    EXPECT_FLOAT_EQ(t.adam.m.means[3 * at], float(original) + 0.5f) << at;
    EXPECT_FLOAT_EQ(t.adam.v.opacity_logits[at], float(original) + 0.25f) << at;
    EXPECT_FLOAT_EQ(t.adam.m.sh[12 * at + 5], float(original) + 0.75f) << at;
    EXPECT_FLOAT_EQ(t.p.sh[12 * at + 11], float(original)) << at;
}

void expect_zero_state(const Tagged& t, std::size_t at) {
    EXPECT_EQ(t.adam.m.means[3 * at], 0.f);
    EXPECT_EQ(t.adam.v.opacity_logits[at], 0.f);
    EXPECT_EQ(t.adam.m.sh[12 * at + 5], 0.f);
}

TEST(Densify, PruneKeepsOptimizerStateAligned) {
    Tagged t = tagged(6);
    DensifyPlan plan;
    plan.prune = {0, 1, 0, 1, 1, 0};
    apply_plan(plan, t.p, t.adam, t.stats);
    ASSERT_EQ(t.p.size(), 3u);
    ASSERT_EQ(t.adam.m.size(), 3u);
    ASSERT_EQ(t.stats.grad_accum.size(), 3u);
    expect_state_of(t, 0, 0);
    expect_state_of(t, 1, 2);
    expect_state_of(t, 2, 5);
}

// Each clone follows its original (the layout both backends write): 0, 1, 1', 2, 3, 3'.
TEST(Densify, CloneFollowsItsOriginalWithFreshState) {
    Tagged t = tagged(4);
    DensifyPlan plan;
    plan.clone = {1, 3};
    apply_plan(plan, t.p, t.adam, t.stats);
    ASSERT_EQ(t.p.size(), 6u);
    const std::size_t at[4] = {0, 1, 3, 4};
    for (int i = 0; i < 4; ++i) expect_state_of(t, at[i], i);
    EXPECT_FLOAT_EQ(t.p.means[3 * 2], 1.f);
    EXPECT_FLOAT_EQ(t.p.means[3 * 5], 3.f);
    EXPECT_FLOAT_EQ(t.p.opacity_logits[5], 0.3f);
    expect_zero_state(t, 2);
    expect_zero_state(t, 5);
}

TEST(Densify, SplitReplacesByTwoSmallerSamples) {
    Tagged t = tagged(3);
    DensifyPlan plan;
    plan.split = {1};
    plan.prune = {0, 0, 1};  // prune and split together
    plan.seed = 9;
    apply_plan(plan, t.p, t.adam, t.stats);
    ASSERT_EQ(t.p.size(), 3u);  // 0, then the two halves of 1
    expect_state_of(t, 0, 0);
    for (std::size_t j : {1u, 2u}) {
        expect_zero_state(t, j);
        EXPECT_NEAR(std::exp(t.p.log_scales[3 * j]), 0.02 / 1.6, 1e-6);
        EXPECT_NEAR(t.p.means[3 * j], 1.0, 0.1);  // sampled within a few σ (0.02) of the original mean
        EXPECT_NE(t.p.means[3 * j], 1.0f);
        EXPECT_FLOAT_EQ(t.p.sh[12 * j + 3], 1.f);
    }
    EXPECT_NE(t.p.means[3], t.p.means[6]);
}

TEST(Densify, OpacityResetClampsAndZeroesItsMoments) {
    Tagged t = tagged(3);
    DensifyPlan plan;
    plan.reset_opacity = 0.01;
    apply_plan(plan, t.p, t.adam, t.stats);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_LE(sigmoid(double(t.p.opacity_logits[i])), 0.01 + 1e-6);
        EXPECT_EQ(t.adam.v.opacity_logits[i], 0.f);
        EXPECT_FLOAT_EQ(t.adam.m.means[3 * i], float(i) + 0.5f);  // other groups untouched
    }
}

TEST(Densify, McmcRelocationFormula) {
    double o, f;
    mcmc_relocation(0.6, 1, o, f);
    EXPECT_NEAR(o, 0.6, 1e-12);
    EXPECT_NEAR(f, 1.0, 1e-12);
    for (int n : {2, 3, 7}) {
        mcmc_relocation(0.8, n, o, f);
        EXPECT_NEAR(1 - std::pow(1 - o, n), 0.8, 1e-12);  // n copies composite to the original opacity
        EXPECT_GT(f, 0.0);
    }
}

TEST(Densify, McmcRelocateAndAddKeepStateAligned) {
    Tagged t = tagged(5);
    DensifyPlan plan;
    plan.relocate_dead = {0};
    plan.relocate_source = {3};
    plan.add_source = {4};
    apply_plan(plan, t.p, t.adam, t.stats);
    ASSERT_EQ(t.p.size(), 6u);
    EXPECT_FLOAT_EQ(t.p.means[0], 3.f);  // dead 0 now sits on source 3
    expect_zero_state(t, 0);
    expect_zero_state(t, 3);  // sources restart their moments
    expect_state_of(t, 1, 1);
    expect_state_of(t, 2, 2);
    EXPECT_FLOAT_EQ(t.p.means[3 * 5], 4.f);
    expect_zero_state(t, 5);
    // the relocated pair shares the corrected opacity: two copies of o composite to o
    const double o3 = sigmoid(0.3), o = sigmoid(double(t.p.opacity_logits[0]));
    EXPECT_NEAR(1 - (1 - o) * (1 - o), o3, 1e-5);
    EXPECT_FLOAT_EQ(t.p.opacity_logits[0], t.p.opacity_logits[3]);
}

TEST(Densify, AdcPlanChoosesCloneSplitPrune) {
    Tagged t = tagged(4);
    // 0: small, high gradient → clone; 1: large, high gradient → split; 2: low opacity → prune; 3: nothing
    t.p.log_scales[0] = t.p.log_scales[1] = t.p.log_scales[2] = std::log(0.001f);
    for (int c = 0; c < 3; ++c) t.p.log_scales[3 + std::size_t(c)] = std::log(0.5f);
    t.p.opacity_logits = {0.f, 0.f, -8.f, 0.f};
    t.stats.grad_accum = {0.003f, 0.003f, 0.f, 0.0001f};
    t.stats.denom = {10, 10, 10, 10};
    const DensifyPlan plan = plan_adc(t.p, t.stats, AdcConfig{}, 1.0, 600, 1);
    EXPECT_EQ(plan.clone, (std::vector<std::int32_t>{0}));
    EXPECT_EQ(plan.split, (std::vector<std::int32_t>{1}));
    EXPECT_EQ(plan.prune, (std::vector<std::uint8_t>{0, 0, 1, 0}));
}

// --max-gaussians / the memory budget under ADC: the largest mean gradients densify first, the cap holds.
TEST(Densify, AdcUnderACapDensifiesTheLargestGradientsFirst) {
    Tagged t = tagged(10);
    for (int i = 0; i < 10; ++i) {
        for (int c = 0; c < 3; ++c) t.p.log_scales[3 * std::size_t(i) + std::size_t(c)] = std::log(0.001f);
        t.p.opacity_logits[std::size_t(i)] = 0.f;
        t.stats.grad_accum[std::size_t(i)] = 0.001f * float(i + 1);  // all above the 2e-4 threshold
        t.stats.denom[std::size_t(i)] = 1;
    }
    AdcConfig c;
    const DensifyPlan all = plan_adc(t.p, t.stats, c, 1.0, 600, 1);
    EXPECT_EQ(all.clone.size(), 10u);
    EXPECT_FALSE(all.capped);
    c.max_gaussians = 13;
    const DensifyPlan capped = plan_adc(t.p, t.stats, c, 1.0, 600, 1);
    EXPECT_TRUE(capped.capped);
    EXPECT_EQ(capped.clone, (std::vector<std::int32_t>{7, 8, 9}));
    Tagged applied = t;
    apply_plan(capped, applied.p, applied.adam, applied.stats);
    EXPECT_EQ(applied.p.size(), 13u);
    c.max_gaussians = 20;  // exactly what ADC wants: not capped
    EXPECT_FALSE(plan_adc(t.p, t.stats, c, 1.0, 600, 1).capped);
}

TEST(Densify, CappedThresholdCountsSplitsOfPrunedGaussiansTwice) {
    // A split leaves two children even when its original was also to be pruned: two more than pruning alone.
    const std::vector<float> grad{0.5f, 0.4f, 0.3f, 0.f};
    const std::vector<std::int32_t> denom{1, 1, 1, 1};
    const std::vector<std::uint32_t> actions{kAdcSplit | kAdcPrune, kAdcClone, kAdcSplit, kAdcPrune};
    // Without densifying: 0 + 1 + 1 + 0 = 2; densified extras: +2, +1, +1.
    EXPECT_EQ(adc_capped_threshold(grad, denom, actions, 2e-4f, 6), 2e-4f);  // all fit
    const float t5 = adc_capped_threshold(grad, denom, actions, 2e-4f, 5);   // 2 + 2 + 1, not the third
    EXPECT_GT(t5, 0.3f);
    EXPECT_LE(t5, 0.4f);
    const float t3 = adc_capped_threshold(grad, denom, actions, 2e-4f, 3);  // the first alone needs 4
    EXPECT_GT(t3, 0.5f);
    EXPECT_GT(adc_capped_threshold(grad, denom, actions, 2e-4f, 1), 0.5f);  // under the cap already: none
}

}  // namespace
}  // namespace radiant
