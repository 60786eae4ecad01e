#include <gtest/gtest.h>

#include <cmath>

#include "radiant/core/error.hpp"
#include "radiant/core/scene.hpp"
#include "radiant/render/cpu/render_cpu.hpp"
#include "support/brute_force.hpp"
#include "support/random_scene.hpp"

namespace radiant {
namespace {

template <class T>
double mean_abs_diff(const Image<T>& a, const Image<T>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.data.size(); ++i) s += std::abs(double(a.data[i]) - double(b.data[i]));
    return s / double(a.data.size());
}

struct TiledCase {
    int width, height, tile_size, sh_degree, count;
};

class TiledVsBruteForce : public ::testing::TestWithParam<TiledCase> {};

TEST_P(TiledVsBruteForce, Equal) {
    const TiledCase tc = GetParam();
    for (std::uint32_t seed = 1; seed <= 3; ++seed) {
        test::RandomSceneOptions o;
        o.count = tc.count;
        o.sh_degree = tc.sh_degree;
        const Scene scene = test::random_scene(seed, o);
        const Camera cam = test::random_camera(seed + 100, tc.width, tc.height);
        RenderSettings s;
        s.tile_size = tc.tile_size;
        s.background = {0.2, 0.5, 0.9};
        const ForwardResult<float> f = cpu::render_forward(scene, cam, s);
        ASSERT_GT(f.lists.pairs(), 0u);
        const Image<float> ref = test::brute_force_rgb(f.projected, tc.width, tc.height, s);
        EXPECT_LT(mean_abs_diff(f.rgb, ref), 1e-6) << "seed " << seed;
        // Same per-hit arithmetic in the same order: in fact bit-identical.
        EXPECT_EQ(f.rgb.data, ref.data) << "seed " << seed;
    }
}

INSTANTIATE_TEST_SUITE_P(Sizes, TiledVsBruteForce,
                         ::testing::Values(TiledCase{97, 61, 16, 3, 300}, TiledCase{130, 77, 16, 0, 500},
                                           TiledCase{64, 64, 8, 2, 200}, TiledCase{33, 120, 16, 1, 400},
                                           TiledCase{1, 1, 16, 3, 50}),
                         [](const auto& info) {
                             const TiledCase& c = info.param;
                             return std::to_string(c.width) + "x" + std::to_string(c.height) + "_tile" +
                                    std::to_string(c.tile_size) + "_sh" + std::to_string(c.sh_degree);
                         });

TEST(TiledRaster, MatchesInDoubleToo) {
    test::RandomSceneOptions o;
    o.count = 200;
    const SceneT<double> scene = test::random_scene<double>(7, o);
    const Camera cam = test::random_camera(8, 71, 45);
    RenderSettings s;
    const ForwardResult<double> f = cpu::render_forward(scene, cam, s);
    EXPECT_LT(mean_abs_diff(f.rgb, test::brute_force_rgb(f.projected, 71, 45, s)), 1e-12);
}

// Ten Gaussians stacked in front of the camera, each with α = 0.8 at the centre pixel.
SceneT<double> stack_scene(int n) {
    SceneT<double> s;
    s.sh_degree = 0;
    s.resize(std::size_t(n));
    for (int i = 0; i < n; ++i) {
        const std::size_t g = std::size_t(i);
        s.means[3 * g + 2] = 2.0 + 0.1 * (n - i);  // ids in reverse depth order: the sort must reorder them
        for (int k = 0; k < 3; ++k) s.log_scales[3 * g + std::size_t(k)] = std::log(0.05);
        s.quats[4 * g] = 1;
        s.opacity_logits[g] = logit(0.8);
        s.sh[3 * g] = (0.1 * i - 0.5) / kShC0;  // colour 0.1·i in red
    }
    return s;
}

Camera centre_camera() {
    // 9×9 image, principal point at the centre of pixel (4, 4) so the stack's mean hits it exactly.
    Camera c;
    c.width = c.height = 9;
    c.fx = c.fy = 20;
    c.cx = c.cy = 4.5;
    return c;
}

TEST(TiledRaster, EarlyStopLeavesOutTheHitThatWouldCrossTheThreshold) {
    RenderSettings s;
    s.eps2d = 0;
    const ForwardResult<double> f = cpu::render_forward(stack_scene(10), centre_camera(), s);
    const std::size_t pix = 4 * 9 + 4;
    // T: 1 → .2 → .04 → .008 → .0016 → .00032; the next (6.4e-5) is below 1e-4, so 5 hits.
    EXPECT_EQ(f.trace.n_hits[pix], 5);
    EXPECT_NEAR(f.trace.final_T[pix], std::pow(0.2, 5), 1e-15);
    EXPECT_NEAR(f.alpha.data[pix], 1 - std::pow(0.2, 5), 1e-15);
    double expect = 0;
    for (int k = 0; k < 5; ++k) expect += 0.8 * std::pow(0.2, k) * 0.1 * (9 - k);  // nearest is id 9
    EXPECT_NEAR(f.rgb.at(4, 4, 0), expect, 1e-12);
    // Expected depth of the composited hits.
    double zsum = 0;
    for (int k = 0; k < 5; ++k) zsum += 0.8 * std::pow(0.2, k) * (2.1 + 0.1 * k);
    EXPECT_NEAR(f.depth.at(4, 4), zsum / (1 - std::pow(0.2, 5)), 1e-12);
    // replay record: list position one past the last hit
    const int tile_start = f.lists.tile_ranges[0];
    EXPECT_EQ(f.trace.last_isect[pix], tile_start + 5);
}

// The median depth is the z of the hit that takes T below ½: the first at α = 0.8, the second at α = 0.3
// (T 1 → .7 → .49); 0 when a pixel's coverage stays under ½.
TEST(TiledRaster, MedianDepthIsWhereTransmittanceCrossesAHalf) {
    RenderSettings s;
    s.eps2d = 0;
    const std::size_t pix = 4 * 9 + 4;
    EXPECT_NEAR(cpu::render_forward(stack_scene(10), centre_camera(), s).median_depth.data[pix], 2.1, 1e-12);
    SceneT<double> faint = stack_scene(10);
    for (double& o : faint.opacity_logits) o = logit(0.3);
    const ForwardResult<double> f = cpu::render_forward(faint, centre_camera(), s);
    EXPECT_NEAR(f.median_depth.data[pix], 2.2, 1e-12);
    EXPECT_GT(f.depth.data[pix], 2.2);  // the expected depth lies further back
    faint.resize(1);
    EXPECT_EQ(cpu::render_forward(faint, centre_camera(), s).median_depth.data[pix], 0.0);
}

TEST(TiledRaster, HitCapAndTraceRecordTheHits) {
    RenderSettings s;
    s.eps2d = 0;
    s.max_splat_steps = 3;
    s.trace_mode = TraceMode::trace;
    const ForwardResult<double> f = cpu::render_forward(stack_scene(10), centre_camera(), s);
    const std::size_t pix = 4 * 9 + 4;
    EXPECT_EQ(f.trace.n_hits[pix], 3);
    EXPECT_NEAR(f.trace.final_T[pix], 0.008, 1e-15);
    ASSERT_EQ(f.trace.stride, 3);
    for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(f.trace.hit_gids[pix * 3 + std::size_t(k)], 9 - k);
        EXPECT_NEAR(f.trace.hit_alphas[pix * 3 + std::size_t(k)], 0.8, 1e-15);
        EXPECT_NEAR(f.trace.hit_T[pix * 3 + std::size_t(k)], std::pow(0.2, k), 1e-15);
    }
    EXPECT_EQ(f.rgb.data, test::brute_force_rgb(f.projected, 9, 9, s).data);
}

TEST(TiledRaster, EmptySceneShowsTheBackground) {
    SceneT<float> s;
    s.sh_degree = 1;
    RenderSettings rs;
    rs.background = {0.25, 0.5, 1.0};
    const ForwardResult<float> f = cpu::render_forward(s, centre_camera(), rs);
    for (int y = 0; y < 9; ++y)
        for (int x = 0; x < 9; ++x) {
            EXPECT_FLOAT_EQ(f.rgb.at(x, y, 0), 0.25f);
            EXPECT_FLOAT_EQ(f.rgb.at(x, y, 2), 1.0f);
            EXPECT_FLOAT_EQ(f.alpha.at(x, y), 0.0f);
        }
}

TEST(Projection, CullsBehindNearAndBeyondFarAndInvisibleOpacity) {
    SceneT<double> s = stack_scene(4);
    s.means[2] = -1;            // 0: behind the camera
    s.means[5] = 0.005;         // 1: before the near plane
    s.means[8] = 50;            // 2: beyond far (set below)
    s.opacity_logits[3] = -10;  // 3: opacity < 1/255
    RenderSettings rs;
    rs.far_plane = 10;
    const ForwardResult<double> f = cpu::render_forward(s, centre_camera(), rs);
    for (std::size_t g = 0; g < 4; ++g) EXPECT_FALSE(f.projected.visible(g)) << g;
    EXPECT_EQ(f.lists.pairs(), 0u);
}

TEST(Settings, InvalidSettingsAreRejected) {
    RenderSettings s;
    s.trace_mode = TraceMode::trace;  // needs max_splat_steps > 0
    EXPECT_THROW(cpu::render_forward(stack_scene(1), centre_camera(), s), Error);
    s = {};
    s.alpha_cutoff = 0;
    EXPECT_THROW(cpu::render_forward(stack_scene(1), centre_camera(), s), Error);
    s = {};
    s.near_plane = -1;
    EXPECT_THROW(cpu::render_forward(stack_scene(1), centre_camera(), s), Error);
}

}  // namespace
}  // namespace radiant
