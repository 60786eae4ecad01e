// Finite-difference checks of the CPU reference backward in double precision (issue 3).
#include <gtest/gtest.h>

#include <cmath>

#include "support/gradient_check.hpp"
#include "support/random_scene.hpp"

namespace radiant {
namespace {

constexpr double kMaxRelError = 1e-5;
constexpr int kSamples = 40;

void expect_all_groups_pass(const test::GradientChecker& checker, const std::string& label,
                            std::uint32_t seed) {
    double worst = 0;
    std::string worst_group;
    for (const test::GroupError& e : checker.check_all(kSamples, seed)) {
        EXPECT_GE(e.checked, std::min(kSamples, e.available) / 2)
            << label << " " << e.group << ": too many samples skipped (" << e.skipped << ")";
        EXPECT_GT(e.fd_norm, 0) << label << " " << e.group << ": no gradient signal";
        EXPECT_LT(e.rel_error, kMaxRelError) << label << " " << e.group << " (checked " << e.checked << ")";
        if (e.rel_error > worst) worst = e.rel_error, worst_group = e.group;
    }
    std::printf("[gradcheck] %-28s worst relative error %.3g (%s)\n", label.c_str(), worst,
                worst_group.c_str());
}

struct RandomCase {
    const char* name;
    int count, sh_degree, width, height;
    TraceMode mode;
    int max_splat_steps;
};

class RandomScenes : public ::testing::TestWithParam<RandomCase> {};

TEST_P(RandomScenes, AnalyticMatchesCentralDifferences) {
    const RandomCase c = GetParam();
    const std::uint32_t seed = std::uint32_t(c.count * 7 + c.sh_degree * 13 + c.width);
    test::RandomSceneOptions o;
    o.count = c.count;
    o.sh_degree = c.sh_degree;
    test::GradCheckProblem p;
    p.scene = test::random_scene<double>(seed, o);
    p.camera = test::random_camera(seed + 1, c.width, c.height);
    p.settings.trace_mode = c.mode;
    p.settings.max_splat_steps = c.max_splat_steps;
    p.settings.background = {0.3, 0.1, 0.6};
    p.weights = test::random_weights(seed + 2, c.width, c.height);
    expect_all_groups_pass(test::GradientChecker(p), c.name, seed);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RandomScenes,
    ::testing::Values(RandomCase{"n10_sh0_replay", 10, 0, 37, 29, TraceMode::replay, 0},
                      RandomCase{"n60_sh1_trace", 60, 1, 50, 41, TraceMode::trace, 64},
                      RandomCase{"n120_sh2_replay", 120, 2, 45, 61, TraceMode::replay, 0},
                      RandomCase{"n200_sh3_trace", 200, 3, 70, 53, TraceMode::trace, 256},
                      RandomCase{"n200_sh3_replay_cap", 200, 3, 33, 47, TraceMode::replay, 5},
                      RandomCase{"n150_sh3_tile_edge", 150, 3, 17, 90, TraceMode::replay, 0}),
    [](const auto& info) { return std::string(info.param.name); });

// Cases near (not across) the cutoffs.
test::GradCheckProblem near_cutoff_problem(std::uint32_t seed, int count = 120) {
    test::RandomSceneOptions o;
    o.count = count;
    test::GradCheckProblem p;
    p.scene = test::random_scene<double>(seed, o);
    p.camera = test::random_camera(seed + 1, 48, 40);
    p.weights = test::random_weights(seed + 2, 48, 40);
    return p;
}

TEST(GradCheckNearCutoffs, AlphaJustAboveTheCutoff) {
    auto p = near_cutoff_problem(31);
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> u(0.0045, 0.006);  // cutoff 1/255 = 0.00392
    for (double& l : p.scene.opacity_logits) l = logit(u(rng));
    expect_all_groups_pass(test::GradientChecker(p), "alpha_near_cutoff", 31);
}

TEST(GradCheckNearCutoffs, AlphaJustBelowTheClamp) {
    auto p = near_cutoff_problem(32);
    std::mt19937 rng(2);
    std::uniform_real_distribution<double> u(0.975, 0.989);  // clamp at 0.99 never reached
    for (double& l : p.scene.opacity_logits) l = logit(u(rng));
    expect_all_groups_pass(test::GradientChecker(p), "alpha_near_0.99", 32);
}

TEST(GradCheckNearCutoffs, TransmittanceNearTheThreshold) {
    auto p = near_cutoff_problem(33, 200);
    for (double& l : p.scene.opacity_logits) l = std::abs(l) + 1.0;  // dense and opaque
    p.settings.transmittance_threshold = 0.05;                       // many pixels stop early
    test::GradientChecker checker(p);
    expect_all_groups_pass(checker, "T_near_threshold", 33);
}

TEST(GradCheckNearCutoffs, PartlyOffScreenAndClampedJacobian) {
    auto p = near_cutoff_problem(34);
    p.camera = test::random_camera(35, 48, 40, 1.6, 50);  // close: much of the scene is outside the view
    expect_all_groups_pass(test::GradientChecker(p), "off_screen", 34);
}

TEST(GradCheckNearCutoffs, NearTheNearPlane) {
    auto p = near_cutoff_problem(36);
    p.settings.near_plane = 2.8;  // camera 3.5 from the origin, scene within ±1: some Gaussians just past it
    expect_all_groups_pass(test::GradientChecker(p), "near_plane", 36);
}

TEST(GradCheckNearCutoffs, MaxAnisotropyClamp) {
    auto p = near_cutoff_problem(37);
    std::mt19937 rng(3);
    std::normal_distribution<double> n(0, 1);
    for (double& s : p.scene.log_scales) s = -2.5 + 0.9 * n(rng);
    p.settings.max_anisotropy = 3.0;
    expect_all_groups_pass(test::GradientChecker(p), "max_anisotropy", 37);
}

// At the discontinuities themselves.
// Mip-Splatting's compensation: opacity × √(det Σ / det Σ'), which moves with the 2D covariance. Small
// Gaussians (a pixel or two) so it is far from 1 and its gradient carries weight.
TEST(GradCheckAntialiased, SmallSplatsWithCompensation) {
    test::RandomSceneOptions o;
    o.count = 150;
    o.log_scale_mean = -4.2;
    o.log_scale_sd = 0.5;
    test::GradCheckProblem p;
    p.scene = test::random_scene<double>(41, o);
    p.camera = test::random_camera(42, 48, 40);
    p.weights = test::random_weights(43, 48, 40);
    p.settings.antialiased = true;
    expect_all_groups_pass(test::GradientChecker(p), "antialiased_small", 41);
    o.log_scale_mean = -2.5;  // and the usual sizes
    p.scene = test::random_scene<double>(44, o);
    expect_all_groups_pass(test::GradientChecker(p), "antialiased", 44);
}

TEST(GradDiscontinuities, ClampedAlphaPassesNoGradient) {
    // One Gaussian, opacity 0.999, centred on pixel (4, 4); the loss sees only that pixel, where α = 0.99.
    SceneT<double> s;
    s.sh_degree = 0;  // no view-dependent colour: the colour gradient cannot reach the mean
    s.resize(1);
    s.means = {0, 0, 3};
    s.log_scales = {std::log(0.02), std::log(0.02), std::log(0.02)};
    s.quats = {1, 0, 0, 0};
    s.opacity_logits = {logit(0.999)};
    s.sh = {0.5, 0.1, -0.2};
    Camera cam;
    cam.width = cam.height = 9;
    cam.fx = cam.fy = 100;
    cam.cx = cam.cy = 4.5;
    RenderSettings rs;
    const auto f = cpu::render_forward(s, cam, rs);
    ASSERT_EQ(f.trace.n_hits[4 * 9 + 4], 1);
    Image<double> w(9, 9, 3);
    w.at(4, 4, 0) = 1;
    w.at(4, 4, 1) = -2;
    const auto g = cpu::render_backward(s, cam, rs, f, w);
    EXPECT_EQ(g.opacity_logits[0], 0.0);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(g.log_scales[std::size_t(k)], 0.0);
    EXPECT_EQ(g.means[0], 0.0);
    EXPECT_EQ(g.means[1], 0.0);
    EXPECT_NEAR(g.sh[0], 0.99 * kShC0, 1e-12);  // colour still gets T·α = 0.99
}

TEST(GradDiscontinuities, CulledGaussiansGetZero) {
    auto p = near_cutoff_problem(40, 30);
    p.scene.means[2] = -8;           // 0: behind the camera (the camera looks at the origin from 3.5 away)
    p.scene.opacity_logits[1] = -9;  // 1: opacity below 1/255, never visible
    p.scene.means[6] = 500;          // 2: far outside the view
    const auto f = cpu::render_forward(p.scene, p.camera, p.settings);
    const auto g = cpu::render_backward(p.scene, p.camera, p.settings, f, p.weights);
    const std::size_t k = std::size_t(p.scene.sh_coeffs());
    std::size_t culled = 0;
    for (std::size_t i = 0; i < p.scene.size(); ++i) {
        if (f.projected.visible(i)) continue;
        ++culled;
        for (int c = 0; c < 3; ++c) {
            EXPECT_EQ(g.means[3 * i + std::size_t(c)], 0.0);
            EXPECT_EQ(g.log_scales[3 * i + std::size_t(c)], 0.0);
        }
        for (int c = 0; c < 4; ++c) EXPECT_EQ(g.quats[4 * i + std::size_t(c)], 0.0);
        EXPECT_EQ(g.opacity_logits[i], 0.0);
        for (std::size_t j = 0; j < 3 * k; ++j) EXPECT_EQ(g.sh[i * 3 * k + j], 0.0);
        EXPECT_EQ(g.mean2d_grad_norms[i], 0.0);
    }
    EXPECT_GE(culled, 3u);
}

TEST(GradDiscontinuities, BackgroundGradientIsFinalTransmittance) {
    auto p = near_cutoff_problem(41, 50);
    const auto f = cpu::render_forward(p.scene, p.camera, p.settings);
    const auto g = cpu::render_backward(p.scene, p.camera, p.settings, f, p.weights);
    Vec3<double> expect{};
    for (std::size_t pix = 0; pix < f.trace.final_T.size(); ++pix)
        for (int c = 0; c < 3; ++c)
            expect[c] += f.trace.final_T[pix] * p.weights.data[3 * pix + std::size_t(c)];
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(g.background[c], expect[c], 1e-10);
}

TEST(GradLossClip, ClipEqualsBackwardOfClippedPixelGradient) {
    auto p = near_cutoff_problem(42, 80);
    p.settings.loss_grad_clip = 0.5;
    const auto f = cpu::render_forward(p.scene, p.camera, p.settings);
    const auto clipped = cpu::render_backward(p.scene, p.camera, p.settings, f, p.weights);
    Image<double> w = p.weights;
    for (double& v : w.data) v = std::clamp(v, -0.5, 0.5);
    RenderSettings plain = p.settings;
    plain.loss_grad_clip = 0;
    const auto ref = cpu::render_backward(p.scene, p.camera, plain, f, w);
    EXPECT_EQ(clipped.means, ref.means);
    EXPECT_EQ(clipped.sh, ref.sh);
}

// Trace ≡ replay: the two trace modes give the same gradients.
TEST(TraceModes, TraceAndReplayGiveIdenticalGradients) {
    for (std::uint32_t seed : {50u, 51u, 52u}) {
        auto p = near_cutoff_problem(seed, 150);
        RenderSettings replay = p.settings, trace = p.settings;
        trace.trace_mode = TraceMode::trace;
        trace.max_splat_steps = 200;  // larger than any pixel's hit count here: same hits as unlimited
        const auto fr = cpu::render_forward(p.scene, p.camera, replay);
        const auto ft = cpu::render_forward(p.scene, p.camera, trace);
        ASSERT_EQ(fr.rgb.data, ft.rgb.data);
        const auto gr = cpu::render_backward(p.scene, p.camera, replay, fr, p.weights);
        const auto gt = cpu::render_backward(p.scene, p.camera, trace, ft, p.weights);
        auto close = [](const std::vector<double>& a, const std::vector<double>& b, const char* what) {
            double scale = 0, diff = 0;
            for (std::size_t i = 0; i < a.size(); ++i) {
                scale = std::max(scale, std::abs(a[i]));
                diff = std::max(diff, std::abs(a[i] - b[i]));
            }
            EXPECT_LE(diff, 1e-12 * std::max(1.0, scale)) << what;
        };
        close(gr.means, gt.means, "means");
        close(gr.log_scales, gt.log_scales, "log_scales");
        close(gr.quats, gt.quats, "quats");
        close(gr.opacity_logits, gt.opacity_logits, "opacity_logits");
        close(gr.sh, gt.sh, "sh");
        close(gr.mean2d_grad_norms, gt.mean2d_grad_norms, "mean2d_grad_norms");
    }
}

// The float instantiation agrees with the double oracle (what the GPU backend will be held to).
TEST(Precision, FloatBackwardTracksDouble) {
    auto p = near_cutoff_problem(60, 150);
    const SceneT<float> sf = scene_cast<float>(p.scene);
    Image<float> wf(p.weights.width, p.weights.height, 3);
    for (std::size_t i = 0; i < wf.data.size(); ++i) wf.data[i] = float(p.weights.data[i]);
    const auto ff = cpu::render_forward(sf, p.camera, p.settings);
    const auto fd = cpu::render_forward(p.scene, p.camera, p.settings);
    const auto gf = cpu::render_backward(sf, p.camera, p.settings, ff, wf);
    const auto gd = cpu::render_backward(p.scene, p.camera, p.settings, fd, p.weights);
    auto rel = [](const std::vector<float>& a, const std::vector<double>& b) {
        double num = 0, den = 0;
        for (std::size_t i = 0; i < a.size(); ++i) num += (a[i] - b[i]) * (a[i] - b[i]), den += b[i] * b[i];
        return std::sqrt(num / den);
    };
    EXPECT_LT(rel(gf.means, gd.means), 1e-3);
    EXPECT_LT(rel(gf.log_scales, gd.log_scales), 1e-3);
    EXPECT_LT(rel(gf.quats, gd.quats), 1e-3);
    EXPECT_LT(rel(gf.opacity_logits, gd.opacity_logits), 1e-3);
    EXPECT_LT(rel(gf.sh, gd.sh), 1e-3);
}

}  // namespace
}  // namespace radiant
