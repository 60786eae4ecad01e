// Issue 22 item 2: poses of the demo scene jittered by 0.5° and 1 % of the extent, trained with --pose-opt,
// move back towards the true ones (compared after the similarity that best aligns the two sets: the scene
// may sit anywhere) and the test PSNR recovers much of what the jitter cost. What this asserts is what the
// refinement achieves today (bench/RESULTS.md, eighth session: 0.50° → 0.30°, 23.4 → 26.8 dB against
// 28.9 unperturbed), not yet the 0.05° / 0.1 % / 0.3 dB.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "radiant/core/camera_grad.hpp"
#include "radiant/io/camera_json.hpp"
#include "radiant/io/dataset.hpp"
#include "radiant/io/file.hpp"
#include "radiant/train/demo_dataset.hpp"
#include "radiant/train/trainer.hpp"
#include "support/similarity.hpp"
#include "support/temp_dir.hpp"

namespace radiant {
namespace {

namespace fs = std::filesystem;

// Each training frame's camera turned by `degrees` about a random axis through its centre and moved by
// `fraction` of `extent` in a random direction (transforms_train.json: camera-to-world matrices).
void jitter_poses(const fs::path& from, const fs::path& to, double degrees, double fraction, double extent) {
    fs::copy(from, to, fs::copy_options::recursive);
    nlohmann::json j = nlohmann::json::parse(read_file((from / "transforms_train.json").string()));
    std::mt19937 rng(11);
    std::normal_distribution<double> n(0.0, 1.0);
    auto direction = [&] {
        const Vec3<double> v{n(rng), n(rng), n(rng)};
        return (1.0 / std::sqrt(dot(v, v))) * v;
    };
    for (auto& frame : j["frames"]) {
        auto& m = frame["transform_matrix"];
        Mat3<double> r;
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) r.m[a][b] = m[a][b].get<double>();
        r = so3_exp(degrees * 3.14159265358979323846 / 180.0 * direction()) * r;
        const Vec3<double> shift = fraction * extent * direction();
        for (int a = 0; a < 3; ++a) {
            for (int b = 0; b < 3; ++b) m[a][b] = r.m[a][b];
            m[a][3] = m[a][3].get<double>() + shift[a];
        }
    }
    write_file_atomic((to / "transforms_train.json").string(), j.dump(1));
}

struct PoseError {
    double rot_mean = 0, rot_max = 0, centre_mean = 0, centre_max = 0;  // degrees; fraction of the extent
};

// Training cameras of `cameras` against the dataset's true ones, after the best similarity.
PoseError pose_error(const std::vector<Camera>& cameras, const Dataset& truth) {
    std::vector<Vec3<double>> from, to;
    std::vector<Mat3<double>> r_from, r_to;
    for (const Camera& c : cameras)
        for (const DatasetView& v : truth.views)
            if (!v.test && v.name == c.name) {
                from.push_back(c.centre());
                to.push_back(v.camera.centre());
                r_from.push_back(c.R);
                r_to.push_back(v.camera.R);
            }
    EXPECT_GT(from.size(), 0u);
    const test::Similarity a = test::align_points(from, to);
    PoseError e;
    for (std::size_t i = 0; i < from.size(); ++i) {
        const Mat3<double> d = r_from[i] * transpose(a.Q) * transpose(r_to[i]);
        const double cos_angle = std::clamp((d.m[0][0] + d.m[1][1] + d.m[2][2] - 1) / 2, -1.0, 1.0);
        const double deg = std::acos(cos_angle) * 180.0 / 3.14159265358979323846;
        const Vec3<double> r = a(from[i]) - to[i];
        const double c = std::sqrt(dot(r, r)) / truth.extent;
        e.rot_mean += deg / double(from.size());
        e.centre_mean += c / double(from.size());
        e.rot_max = std::max(e.rot_max, deg);
        e.centre_max = std::max(e.centre_max, c);
    }
    return e;
}

TEST(PoseRecovery, JitteredPosesComeBack) {
    test::TempDir dir;
    DemoDatasetOptions d;
    d.width = d.height = 96;
    d.train_views = 32;
    d.test_views = 4;
    d.fov_x_deg = 70;  // wide: rotation and translation move the image differently enough to tell apart
    d.surface_detail = true;
    write_demo_dataset((dir / "truth").string(), d);
    const Dataset truth = open_dataset((dir / "truth").string(), DatasetOptions{});
    jitter_poses(dir / "truth", dir / "jittered", 0.5, 0.01, truth.extent);

    auto config = [&](const std::string& data, const std::string& out) {
        TrainConfig c;
        c.data = (dir / data).string();
        c.output = (dir / out).string();
        c.steps = 2000;
        c.eval = true;
        c.white_background = true;
        c.sh_degree = 1;
        c.adc.start = 200;
        c.adc.stop = 1000;
        c.adc.reset_every = 100000;
        return c;
    };
    const TrainResult fixed = train(config("jittered", "fixed"));
    TrainConfig refine = config("jittered", "refined");
    refine.pose.enabled = true;
    const TrainResult refined = train(refine);
    const PoseError before =
        pose_error(open_dataset((dir / "jittered").string(), DatasetOptions{}).named_cameras(), truth);
    const PoseError after = pose_error(read_cameras_json((dir / "refined/cameras.json").string()), truth);
    std::printf(
        "[pose recovery] before: %.3f° (max %.3f°), %.3f %% (max %.3f %%); after: %.3f° (max %.3f°), "
        "%.3f %% (max %.3f %%); test PSNR %.2f dB, %.2f without refinement\n",
        before.rot_mean, before.rot_max, 100 * before.centre_mean, 100 * before.centre_max, after.rot_mean,
        after.rot_max, 100 * after.centre_mean, 100 * after.centre_max, refined.test_psnr, fixed.test_psnr);
    EXPECT_GT(before.rot_mean, 0.4);
    EXPECT_LT(after.rot_mean, 0.75 * before.rot_mean);
    EXPECT_LT(after.centre_mean, 0.75 * before.centre_mean);
    EXPECT_GT(refined.test_psnr, fixed.test_psnr + 2.0);
}

}  // namespace
}  // namespace radiant
