#include "radiant/core/composite.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "radiant/core/project.hpp"
#include "radiant/core/ray_project.hpp"

namespace radiant {
namespace {

template <class T>
bool same_bits(T a, T b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// The kernels reuse the exponential splat_alpha hands out for the hit's gradient (splat_alpha_vjp's form
// with g); the CPU reference's form evaluates exp(conic_power) again. They agree only if splat_alpha's g is
// that value to the bit, for kept hits, hits at the 0.99 clamp and all.
template <class T>
void check_reused_exponential(std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    int kept = 0, clamped = 0, skipped = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        const Sym2<T> conic{T(0.2 + 1.5 * std::abs(u(rng))), T(0.3 * u(rng)),
                            T(0.2 + 1.5 * std::abs(u(rng)))};
        const Vec2<T> d{T(3 * u(rng)), T(3 * u(rng))};
        const T opacity = T(0.5 + 0.5 * std::abs(u(rng))) * (trial % 3 == 0 ? T(1.2) : T(1));
        const T extent_sq = T(2 * 4.6), cutoff = T(1) / T(255);
        T alpha = -1, g = -1;
        if (!splat_alpha(conic, d, opacity, extent_sq, cutoff, alpha, g)) {
            ++skipped;
            continue;
        }
        ++kept;
        clamped += !(opacity * g < T(kMaxAlpha));
        const T again = std::exp(conic_power(conic, d));
        EXPECT_TRUE(same_bits(g, again)) << "trial " << trial << ": " << g << " vs " << again;
    }
    EXPECT_GT(kept, 2000);
    EXPECT_GT(clamped, 30);
    EXPECT_GT(skipped, 2000);
}

TEST(Composite, SplatAlphaHandsOutTheExponentialTheGradientRecomputes) {
    check_reused_exponential<float>(3);
    check_reused_exponential<double>(4);
}

// A random Gaussian for the footprint-then-colour tests (depth_spread: the spread of its mean along z); one
// in seven has a non-finite SH coefficient, so it is culled by its colour alone.
GaussianParams<float> split_trial_gaussian(std::mt19937& rng, int trial, float depth_spread,
                                           float (&sh)[48]) {
    std::normal_distribution<double> n(0.0, 1.0);
    for (float& c : sh) c = float(0.5 * n(rng));
    if (trial % 7 == 0) sh[3 * (1 + trial % 15) + trial % 3] = trial % 2 ? NAN : INFINITY;
    GaussianParams<float> p;
    p.mean = {float(1.5 * n(rng)), float(1.5 * n(rng)), float(depth_spread * n(rng))};
    p.log_scale = {float(-3 + n(rng)), float(-3 + n(rng)), float(-3 + n(rng))};
    p.quat = {float(n(rng)), float(n(rng)), float(n(rng)), float(n(rng))};
    p.opacity_logit = float(2 * n(rng));
    p.sh = sh;
    return p;
}

// How the trials fell: the tests mean something only with many of each.
struct SplitCounts {
    int kept = 0, culled = 0, culled_by_colour = 0;
    // Whether the trial was kept (then its footprints are compared).
    bool add(bool footprint, bool keep) {
        if (keep) return ++kept, true;
        ++culled;
        culled_by_colour += footprint;
        return false;
    }
    void expect_both_kinds_of_cull() const {
        EXPECT_GT(kept, 500);
        EXPECT_GT(culled, 500);
        EXPECT_GT(culled_by_colour, 50);
    }
};

// The CUDA projection runs the footprint with no SH loaded (p.sh null: reading it would crash this test) and
// reads a Gaussian's SH only when it is kept. Split so, it must keep and cull the same Gaussians and give the
// same footprint as project_ewa_gaussian, including Gaussians whose only fault is a non-finite SH
// coefficient.
TEST(Composite, FootprintThenColourIsTheWholeProjection) {
    const Camera camera = look_at({0.3, -0.2, -4}, {0, 0, 0}, {0, -1, 0}, 50, 320, 240);
    RenderSettings settings;
    const ProjectSettings<float> ps = project_settings<float>(camera, settings, 3);
    std::mt19937 rng(5);
    SplitCounts counts;
    for (int trial = 0; trial < 5000; ++trial) {
        float sh[48];
        GaussianParams<float> p = split_trial_gaussian(rng, trial, 1.5f, sh);
        p.sh = nullptr;
        Footprint<float> whole{}, split{};
        const bool footprint = project_ewa_footprint(p, ps, split);
        p.sh = sh;
        const bool keep = project_ewa_gaussian(p, ps, whole);
        const bool split_keep = footprint && footprint_colour(p, ps, split);
        ASSERT_EQ(split_keep, keep) << "trial " << trial;
        if (!counts.add(footprint, keep)) continue;
        EXPECT_TRUE(same_bits(whole.mean2d.x, split.mean2d.x) && same_bits(whole.mean2d.y, split.mean2d.y));
        EXPECT_TRUE(same_bits(whole.conic.a, split.conic.a) && same_bits(whole.conic.b, split.conic.b) &&
                    same_bits(whole.conic.c, split.conic.c));
        EXPECT_TRUE(same_bits(whole.depth, split.depth) && same_bits(whole.opacity, split.opacity) &&
                    same_bits(whole.extent_sq, split.extent_sq));
        for (int c = 0; c < 3; ++c) EXPECT_TRUE(same_bits(whole.colour[c], split.colour[c]));
        EXPECT_EQ(whole.radius, split.radius);
        EXPECT_TRUE(whole.rect.x0 == split.rect.x0 && whole.rect.y0 == split.rect.y0 &&
                    whole.rect.x1 == split.rect.x1 && whole.rect.y1 == split.rect.y1);
    }
    counts.expect_both_kinds_of_cull();
}

// The same split for the `ray` model: its footprint reads no SH, and with the colour after it keeps, culls
// and describes the Gaussians as project_ray_gaussian does.
TEST(Composite, RayFootprintThenColourIsTheWholeProjection) {
    const Camera camera = look_at({0.3, -0.2, -4}, {0, 0, 0}, {0, -1, 0}, 50, 320, 240);
    RenderSettings settings;
    settings.shading = Shading::ray;
    const ProjectSettings<float> ps = project_settings<float>(camera, settings, 3);
    std::mt19937 rng(6);
    SplitCounts counts;
    for (int trial = 0; trial < 5000; ++trial) {
        float sh[48];
        GaussianParams<float> p = split_trial_gaussian(rng, trial, 3.0f, sh);
        p.sh = nullptr;
        RayFootprint<float> whole{}, split{};
        const bool footprint = project_ray_footprint(p, ps, split);
        p.sh = sh;
        const bool keep = project_ray_gaussian(p, ps, whole);
        ASSERT_EQ(footprint && footprint_colour(p, ps, split), keep) << "trial " << trial;
        if (!counts.add(footprint, keep)) continue;
        for (int i = 0; i < 3; ++i) {
            EXPECT_TRUE(same_bits(whole.mean_cam[i], split.mean_cam[i]));
            EXPECT_TRUE(same_bits(whole.colour[i], split.colour[i]));
            for (int j = 0; j < 3; ++j)
                EXPECT_TRUE(same_bits(whole.whitening_cam.m[i][j], split.whitening_cam.m[i][j]));
        }
        EXPECT_TRUE(same_bits(whole.opacity, split.opacity) && same_bits(whole.depth, split.depth));
        EXPECT_EQ(whole.bounds.kind, split.bounds.kind);
        EXPECT_TRUE(
            same_bits(whole.bounds.x0, split.bounds.x0) && same_bits(whole.bounds.x1, split.bounds.x1) &&
            same_bits(whole.bounds.y0, split.bounds.y0) && same_bits(whole.bounds.y1, split.bounds.y1));
        EXPECT_EQ(whole.radius, split.radius);
    }
    counts.expect_both_kinds_of_cull();
}

}  // namespace
}  // namespace radiant
