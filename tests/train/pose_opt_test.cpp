// Issue 22 item 2: pose refinement — the correction's parameter gradient against central differences in
// double, its Adam step, fitting one view's pose to a fixed scene, the checkpoint section, and settings that
// refuse what cannot run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "radiant/core/camera_grad.hpp"
#include "radiant/core/error.hpp"
#include "radiant/io/image_io.hpp"
#include "radiant/render/cpu/render_cpu.hpp"
#include "radiant/train/backend.hpp"
#include "radiant/train/checkpoint.hpp"
#include "radiant/train/config.hpp"
#include "radiant/train/pose_fit.hpp"
#include "radiant/train/pose_opt.hpp"
#include "support/gradient_check.hpp"
#include "support/random_scene.hpp"

namespace radiant {
namespace {

// Σ w·C over the render through the corrected camera, as a function of the six correction parameters, at a
// correction far from zero (so the left Jacobian and the −ε × τ term both matter).
TEST(PoseOpt, ParameterGradientMatchesCentralDifferences) {
    for (std::uint32_t seed : {4u, 5u}) {
        test::RandomSceneOptions o;
        o.count = 80;
        o.sh_degree = 1;
        const SceneT<double> s = test::random_scene<double>(seed, o);
        const Camera cam = test::random_camera(seed + 10, 48, 40);
        const Image<double> w = test::random_weights(seed + 20, 48, 40);
        const std::array<double, 6> delta{0.04, -0.03, 0.05, 0.08, -0.05, 0.06};
        RenderSettings st;
        st.background = {0.3, 0.1, 0.6};
        RenderSettings probe = st;
        probe.trace_mode = TraceMode::trace;
        probe.max_splat_steps = int(s.size()) + 1;
        const Camera at = corrected_camera(cam, delta);
        const std::vector<std::int64_t> sig = test::signature(s, at, cpu::render_forward(s, at, probe));
        const auto fwd = cpu::render_forward(s, at, st);
        const SceneGradsT<double> g = cpu::render_backward(s, at, st, fwd, w);
        const std::array<double, 6> analytic =
            pose_param_grads(delta, {g.camera_rot.x, g.camera_rot.y, g.camera_rot.z},
                             {g.camera_trans.x, g.camera_trans.y, g.camera_trans.z});
        auto loss = [&](const std::array<double, 6>& d, bool& same) {
            const Camera c = corrected_camera(cam, d);
            const auto f = cpu::render_forward(s, c, probe);
            same = test::signature(s, c, f) == sig;
            double l = 0;
            for (std::size_t i = 0; i < f.rgb.data.size(); ++i) l += w.data[i] * f.rgb.data[i];
            return l;
        };
        double num = 0, den = 0;
        int checked = 0;
        for (std::size_t k = 0; k < 6; ++k) {
            std::array<double, 6> p = delta, m = delta;
            p[k] += 1e-6;
            m[k] -= 1e-6;
            bool sp = false, sm = false;
            const double fd = (loss(p, sp) - loss(m, sm)) / 2e-6;
            if (!sp || !sm) continue;
            num += (fd - analytic[k]) * (fd - analytic[k]);
            den += fd * fd;
            ++checked;
        }
        const double rel = std::sqrt(num / std::max(den, 1e-300));
        std::printf("[pose params] seed %u: relative error %.3g over %d parameters\n", seed, rel, checked);
        EXPECT_GE(checked, 5);
        EXPECT_GT(den, 0);
        EXPECT_LT(rel, 1e-5);
    }
}

TEST(PoseOpt, CorrectionMovesTheCameraFrameAndAdamDescends) {
    const Camera cam = test::random_camera(3, 32, 24);
    const Camera same = corrected_camera(cam, {});
    EXPECT_NEAR(same.t.x, cam.t.x, 1e-15);
    EXPECT_NEAR(same.R.m[1][2], cam.R.m[1][2], 1e-15);
    // A point seen by the corrected camera: exp([ω]×)·(R x + t) + τ.
    const std::array<double, 6> d{0.1, -0.2, 0.05, 0.3, 0.1, -0.2};
    const Camera c = corrected_camera(cam, d);
    const Vec3<double> x{0.3, -0.4, 0.7};
    const Vec3<double> want =
        so3_exp(Vec3<double>{0.1, -0.2, 0.05}) * (cam.R * x + cam.t) + Vec3<double>{0.3, 0.1, -0.2};
    const Vec3<double> got = c.R * x + c.t;
    EXPECT_NEAR(got.x, want.x, 1e-12);
    EXPECT_NEAR(got.y, want.y, 1e-12);
    EXPECT_NEAR(got.z, want.z, 1e-12);
    // A constant gradient moves the parameters against it, τ scaled by the extent; a non-finite one is
    // ignored.
    PoseState s = PoseState::zero(3);
    PoseConfig pc;
    pose_update(s, 1, {1, 0, 0}, {0, -1, 0}, 1e-3, 4.0, pc);
    EXPECT_NEAR(s.delta[1][0], -1e-3, 1e-9);
    EXPECT_NEAR(s.delta[1][4], 4e-3, 1e-9);
    EXPECT_EQ(s.delta[0], (std::array<double, 6>{}));
    pose_update(s, 1, {NAN, 0, 0}, {0, 0, 0}, 1e-3, 4.0, pc);
    EXPECT_TRUE(std::isfinite(s.delta[1][0]));
    EXPECT_EQ(s.steps[1], 2);
    EXPECT_THROW(pose_update(s, 3, {}, {}, 1e-3, 1.0, pc), Error);
    EXPECT_NEAR(pose_lr(pc, 0, 100), pc.lr, 1e-15);
    EXPECT_NEAR(pose_lr(pc, 100, 100), pc.lr_final, 1e-15);
    // With a delayed start the decay runs over the steps that learn.
    PoseConfig late = pc;
    late.start = 40;
    EXPECT_NEAR(pose_lr(late, 41, 100), late.lr * std::pow(late.lr_final / late.lr, 1.0 / 60.0), 1e-15);
    EXPECT_NEAR(pose_lr(late, 100, 100), late.lr_final, 1e-15);
}

// Rotation angle (degrees) and centre distance between two cameras.
std::pair<double, double> pose_gap(const Camera& a, const Camera& b) {
    const Mat3<double> d = a.R * transpose(b.R);
    const double c = std::clamp((d.m[0][0] + d.m[1][1] + d.m[2][2] - 1) / 2, -1.0, 1.0);
    const Vec3<double> e = a.centre() - b.centre();
    return {std::acos(c) * 180 / 3.14159265358979323846, std::sqrt(dot(e, e))};
}

// fit_pose (tracking rounds, --eval-pose-fit): a camera turned by ~0.3° and moved by ~1.5 % of the scene's
// size comes back to the pose its image was rendered from, and the scene, its moments and statistics stay
// as they were (the steps only measure).
TEST(PoseFit, AShiftedCameraComesBackAndTheSceneStays) {
    test::RandomSceneOptions o;
    o.count = 3000;
    o.sh_degree = 1;
    TrainState s;
    s.params = test::random_scene(21, o);
    s.adam.reset_like(s.params);
    s.stats.reset(s.params.size());
    const Camera truth = test::random_camera(4, 96, 72);
    RenderSettings rs;
    rs.sh_degree = 1;
    std::vector<TargetImage> images(1);
    images[0].rgb = to_u8(cpu::render_forward(s.params, truth, rs).rgb);
    const Camera given = corrected_camera(truth, {0.004, -0.003, 0.002, 0.02, -0.015, 0.01});
    std::unique_ptr<Backend> b = make_backend("cpu");
    b->set_images(images);
    b->load(s);
    StepInput in;
    in.settings = rs;
    const std::array<double, 6> d = fit_pose(*b, in, given, {}, PoseFit{100, 0}, 2.0);
    const auto [turn0, move0] = pose_gap(given, truth);
    const auto [turn1, move1] = pose_gap(corrected_camera(given, d), truth);
    std::printf("[pose fit] %.4f° and %.5f away before, %.4f° and %.5f after\n", turn0, move0, turn1, move1);
    EXPECT_GT(turn0, 0.25);
    EXPECT_LT(turn1, 0.1 * turn0);
    EXPECT_LT(move1, 0.1 * move0);
    const TrainState kept = b->save();
    EXPECT_EQ(kept.params.means, s.params.means);
    EXPECT_EQ(kept.params.sh, s.params.sh);
    EXPECT_EQ(kept.adam.m.means, s.adam.m.means);
    EXPECT_EQ(kept.stats.denom, s.stats.denom);
    EXPECT_EQ(fit_pose(*b, in, given, d, PoseFit{0, 0}, 2.0), d);  // no steps: as given
    // A camera turned away from the scene sees nothing: no gradient, no step taken, and the fit ends.
    const Camera away = corrected_camera(truth, {3.14159, 0, 0, 0, 0, 0});
    const std::array<double, 6> start{0.01, 0, 0, 0, 0, 0};
    EXPECT_EQ(fit_pose(*b, in, away, start, PoseFit{200, 0}, 2.0), start);
}

// Turns alike in every camera's own frame are taken out (the tracking rounds' near-gauge); each camera's
// centre stays where its correction put it, and what differs between cameras stays.
TEST(PoseOpt, MeanTurnIsTakenOutAndCentresStay) {
    std::vector<Camera> cams;
    for (std::uint32_t k = 0; k < 4; ++k) cams.push_back(test::random_camera(30 + k, 32, 24));
    PoseState s = PoseState::zero(4);
    const Vec3<double> common{0.01, -0.02, 0.005};
    for (std::size_t i = 0; i < 4; ++i)
        s.delta[i] = {common.x + 0.001 * double(i),
                      common.y,
                      common.z - 0.002 * double(i),
                      0.05 * double(i),
                      -0.03,
                      0.02};
    std::vector<Vec3<double>> centres;
    for (std::size_t i = 0; i < 4; ++i) centres.push_back(corrected_camera(cams[i], s.delta[i]).centre());
    const PoseState before = s;
    remove_mean_turn(s, {0, 1, 2, 3});
    Vec3<double> mean{};
    for (std::size_t i = 0; i < 4; ++i) {
        mean = mean + Vec3<double>{s.delta[i][0], s.delta[i][1], s.delta[i][2]};
        const Vec3<double> c = corrected_camera(cams[i], s.delta[i]).centre();
        EXPECT_NEAR(c.x, centres[i].x, 1e-12);
        EXPECT_NEAR(c.y, centres[i].y, 1e-12);
        EXPECT_NEAR(c.z, centres[i].z, 1e-12);
        EXPECT_NEAR(s.delta[i][0] - s.delta[0][0], before.delta[i][0] - before.delta[0][0], 1e-15);
    }
    EXPECT_NEAR(mean.x, 0, 1e-15);
    EXPECT_NEAR(mean.y, 0, 1e-15);
    EXPECT_NEAR(mean.z, 0, 1e-15);
}

// Corrections that all move their cameras by one world motion are the scene moving with them: removed. What
// differs between cameras stays.
TEST(PoseOpt, CommonMotionIsTakenOut) {
    std::vector<Camera> cams;
    for (std::uint32_t k = 0; k < 5; ++k) cams.push_back(test::random_camera(30 + k, 32, 24));
    std::vector<const Camera*> ptrs;
    for (const Camera& c : cams) ptrs.push_back(&c);
    const std::vector<std::size_t> ids{0, 1, 2, 3, 4};
    const Vec3<double> big_omega{0.01, -0.02, 0.015}, big_t{0.03, 0.01, -0.02};
    PoseState s = PoseState::zero(5);
    for (std::size_t i = 0; i < 5; ++i) {
        const Camera& c = cams[i];
        const Vec3<double> w = c.R * big_omega;
        const Vec3<double> tau = c.R * big_t + c.t - so3_exp(w) * c.t;
        s.delta[i] = {w.x, w.y, w.z, tau.x, tau.y, tau.z};
        // The corrected camera is the given one looking at the world moved by (Ω, T).
        const Camera moved = corrected_camera(c, s.delta[i]);
        const Vec3<double> x{0.2, 0.1, -0.3};
        const Vec3<double> want = c.R * (so3_exp(big_omega) * x + big_t) + c.t, got = moved.R * x + moved.t;
        EXPECT_NEAR(got.x, want.x, 1e-12);
        EXPECT_NEAR(got.z, want.z, 1e-12);
    }
    remove_common_motion(s, ptrs, ids);
    for (const auto& d : s.delta)
        for (double v : d) EXPECT_NEAR(v, 0.0, 1e-12);
    // Random corrections: afterwards their world motions average to zero, and a second pass changes nothing.
    std::mt19937 rng(3);
    std::normal_distribution<double> n(0.0, 0.01);
    for (auto& d : s.delta)
        for (double& v : d) v = n(rng);
    remove_common_motion(s, ptrs, ids);
    const PoseState once = s;
    remove_common_motion(s, ptrs, ids);
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t k = 0; k < 6; ++k) EXPECT_NEAR(s.delta[i][k], once.delta[i][k], 1e-12);
    Vec3<double> mean_omega{};
    for (std::size_t i = 0; i < 5; ++i)
        mean_omega =
            mean_omega + transpose(cams[i].R) * Vec3<double>{s.delta[i][0], s.delta[i][1], s.delta[i][2]};
    EXPECT_NEAR(mean_omega.x, 0.0, 1e-12);
    EXPECT_NEAR(mean_omega.y, 0.0, 1e-12);
}

TEST(PoseOpt, CheckpointKeepsTheCorrectionsAndRefusesBadOnes) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "radiant_pose_ck";
    std::filesystem::create_directories(dir);
    Checkpoint c;
    c.config_json = "{}";
    c.state.params = test::random_scene<float>(2, {});
    c.state.adam.reset_like(c.state.params);
    c.state.stats.reset(c.state.params.size());
    c.state.appearance = AppearanceState::identity(AppearanceModel::exposure, 2);
    c.poses = PoseState::zero(2);
    c.poses.delta[1] = {0.01, 0.02, 0.03, 0.04, 0.05, 0.06};
    c.poses.steps[1] = 7;
    const std::string path = (dir / "checkpoint.bin").string();
    write_checkpoint(path, c);
    const Checkpoint back = read_checkpoint(path);
    EXPECT_EQ(back.poses.delta, c.poses.delta);
    EXPECT_EQ(back.poses.steps, c.poses.steps);
    EXPECT_EQ(back.state.appearance.model, AppearanceModel::exposure);
    c.poses.delta[0][2] = NAN;
    write_checkpoint(path, c);
    EXPECT_THROW(read_checkpoint(path), IoError);
    std::filesystem::remove_all(dir);

    TrainConfig t;
    t.data = "d";
    t.pose.lr = 0;
    EXPECT_THROW(validate(t), Error);
    t.pose.lr = 1e-3;
    t.pose.reg = -1;
    EXPECT_THROW(validate(t), Error);
    t.pose.reg = 1e-6;
    t.pose.start = -5;
    EXPECT_THROW(validate(t), Error);
    t.pose.start = 200;
    EXPECT_NO_THROW(validate(t));
    t.pose.track_every = 500;  // tracking rounds refine corrections that only --pose-opt learns
    EXPECT_THROW(validate(t), Error);
    t.pose.enabled = true;
    EXPECT_NO_THROW(validate(t));
    t.pose.track_iters = 7;  // one render and no round: nothing fitted
    EXPECT_THROW(validate(t), Error);
    t.pose.track_iters = 50;
    t.eval_pose_fit = -1;
    EXPECT_THROW(validate(t), Error);
    t.eval_pose_fit = 3;
    EXPECT_THROW(validate(t), Error);
    t.eval_pose_fit = 100;
    EXPECT_NO_THROW(validate(t));
    EXPECT_EQ(config_from_json(config_to_json(t), "c", TrainConfig{}).pose.track_every, 500);
    EXPECT_EQ(config_from_json(config_to_json(t), "c", TrainConfig{}).eval_pose_fit, 100);
}

}  // namespace
}  // namespace radiant
