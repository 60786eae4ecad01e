// Issue 22 item 2: poses of the demo scene jittered by 0.5° and 1 % of the extent, trained with --pose-opt,
// move back towards the true ones (compared after the similarity that best aligns the two sets: the scene
// may sit anywhere) and the test PSNR recovers much of what the jitter cost. At 96² the images do not
// determine the poses to the 0.05° / 0.1 %: even each view fitted alone to a scene trained on the
// true poses ends ~0.3° from them (bench/RESULTS.md, twelfth session). What this asserts is what the
// refinement achieves here (0.50° → 0.30°, 23.4 → 26.8 dB against 28.9 unperturbed); the target is
// checked at 384² on the GPU (tests/gpu/pose_recovery_gpu_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>

#include "radiant/core/camera_grad.hpp"
#include "radiant/io/camera_json.hpp"
#include "radiant/io/dataset.hpp"
#include "radiant/io/file.hpp"
#include "radiant/train/demo_dataset.hpp"
#include "radiant/train/trainer.hpp"
#include "support/pose_recovery.hpp"
#include "support/temp_dir.hpp"

namespace radiant {
namespace {

namespace fs = std::filesystem;
using test::jitter_poses;
using test::pose_error;
using test::PoseError;

// A run on jittered poses without and with pose refinement, and how far the poses and the test PSNR moved.
struct Recovery {
    PoseError before, after;
    double refined_psnr = 0, fixed_psnr = 0;
};

// The demo dataset `d` written, its training poses jittered by 0.5° and 1 % of the extent, and trained
// twice for `steps` (densifying to `densify_until`, then `adjust`ed): as it comes, and with --pose-opt on
// and then `refine`d. The refined cameras are compared with the true ones.
Recovery recover(const test::TempDir& dir, const DemoDatasetOptions& d, const char* label, long steps,
                 long densify_until, const std::function<void(TrainConfig&)>& adjust,
                 const std::function<void(TrainConfig&)>& refine) {
    write_demo_dataset((dir / "truth").string(), d);
    const Dataset truth = open_dataset((dir / "truth").string(), DatasetOptions{});
    jitter_poses(dir / "truth", dir / "jittered", 0.5, 0.01, truth.extent);
    auto config = [&](const char* out) {
        TrainConfig c;
        c.data = (dir / "jittered").string();
        c.output = (dir / out).string();
        c.steps = steps;
        c.eval = true;
        c.white_background = true;
        c.sh_degree = 1;
        c.adc.start = 200;
        c.adc.stop = densify_until;
        c.adc.reset_every = 100000;
        // Uncapped the 96² runs grow to ~34k Gaussians and took 160 s of CI's two cores; capped, 98 s with
        // the same recovery (0.298° / 0.502 % against 0.301° / 0.506 %).
        c.adc.max_gaussians = 12000;
        adjust(c);
        return c;
    };
    const TrainResult fixed = train(config("fixed"));
    TrainConfig c = config("refined");
    c.pose.enabled = true;
    refine(c);
    const TrainResult refined = train(c);
    Recovery r;
    r.before = pose_error(open_dataset((dir / "jittered").string(), DatasetOptions{}).named_cameras(), truth);
    r.after = pose_error(read_cameras_json((dir / "refined/cameras.json").string()), truth);
    r.refined_psnr = refined.test_psnr;
    r.fixed_psnr = fixed.test_psnr;
    std::printf(
        "[%s] before: %.3f° (max %.3f°), %.3f %% (max %.3f %%); after: %.3f° (max %.3f°), %.3f %% (max "
        "%.3f %%); test PSNR %.2f dB, %.2f without refinement\n",
        label, r.before.rot_mean, r.before.rot_max, 100 * r.before.centre_mean, 100 * r.before.centre_max,
        r.after.rot_mean, r.after.rot_max, 100 * r.after.centre_mean, 100 * r.after.centre_max,
        r.refined_psnr, r.fixed_psnr);
    return r;
}

TEST(PoseRecovery, JitteredPosesComeBack) {
    test::TempDir dir;
    DemoDatasetOptions d;
    d.width = d.height = 96;
    d.train_views = 32;
    d.test_views = 4;
    d.fov_x_deg = 70;  // wide: rotation and translation move the image differently enough to tell apart
    d.surface_detail = true;
    const Recovery r = recover(
        dir, d, "pose recovery", 2000, 1000, [](TrainConfig&) {}, [](TrainConfig&) {});
    EXPECT_GT(r.before.rot_mean, 0.4);
    EXPECT_LT(r.after.rot_mean, 0.75 * r.before.rot_mean);
    EXPECT_LT(r.after.centre_mean, 0.75 * r.before.centre_mean);
    EXPECT_GT(r.refined_psnr, r.fixed_psnr + 2.0);
}

// What a phone capture brings: a handheld sweep (a quarter turn) through a distorted lens (k1 = 0.25),
// undistorted with a mask over the border the lens never saw, its SfM poses a little off. --pose-opt with
// tracking rounds must bring the poses back towards the true ones and the test views' PSNR with them.
// Measured (2 cores): 0.506° → 0.261°, 0.84 → 0.20 % of the extent, 29.64 dB against 26.56 unrefined. With
// the mask ignored where the camera gradient is taken (the border scored in the pose steps and the rounds'
// fits) the same run ends at 0.325° and 22.03 dB, and this test fails.
TEST(PoseRecovery, JitteredPosesOfADistortedSweepComeBack) {
    test::TempDir dir;
    DemoDatasetOptions d;
    d.width = 108;
    d.height = 84;
    d.fov_x_deg = 70;
    d.arc_deg = 90;
    d.train_views = 24;
    d.test_views = 4;
    d.surface_detail = true;
    d.distortion = {0.25, 0, 0, 0};
    const Recovery r = recover(
        dir, d, "pose recovery, distorted sweep", 1500, 800,
        [](TrainConfig& c) { c.undistort = Undistort::mask; },
        [](TrainConfig& c) {
            c.pose.track_every = 500;
            c.pose.track_iters = 20;
        });
    EXPECT_GT(r.before.rot_mean, 0.4);
    EXPECT_LT(r.after.rot_mean, 0.6 * r.before.rot_mean);
    EXPECT_LT(r.after.centre_mean, 0.75 * r.before.centre_mean);
    EXPECT_GT(r.refined_psnr, r.fixed_psnr + 1.0);
}

}  // namespace
}  // namespace radiant
