// Issue 18: a capture through a distorted lens trains with `ewa` as well as the same scene taken through an
// ideal one. The photos are the demo scene ray-traced through an OpenCV lens (k1 = 0.1, a phone-like 70°
// view); undistorted to a pinhole they have a border the lens never saw, which must neither train nor score.
// Measured (2 cores): ideal 29.37 dB; mask 28.88 (bicubic 29.20), crop 28.69, masks dropped 28.25.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "radiant/core/log.hpp"
#include "radiant/io/dataset.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/ply.hpp"
#include "radiant/io/undistort.hpp"
#include "radiant/render/cpu/render_cpu.hpp"
#include "radiant/train/demo_dataset.hpp"
#include "radiant/train/loss.hpp"
#include "radiant/train/trainer.hpp"
#include "support/temp_dir.hpp"

namespace radiant {
namespace {

TrainConfig run(const test::TempDir& dir, const std::string& data, const std::string& out) {
    TrainConfig c;
    c.data = (dir / data).string();
    c.output = (dir / out).string();
    c.backend = "cpu";
    c.steps = 700;
    c.eval = true;
    c.white_background = true;
    c.sh_degree = 1;
    c.adc.start = 100;
    c.adc.stop = 500;
    c.adc.interval = 100;
    c.adc.reset_every = 100000;
    c.log_every = 50;
    return c;
}

// Mean test PSNR of a run's scene on the ideal lens's test photos, over the pixels a lens with these OpenCV
// coefficients (same intrinsics) saw: the camera `mask` undistorts to is the ideal one.
double psnr_where_the_lens_saw(const std::filesystem::path& ideal, const std::filesystem::path& run,
                               const std::vector<double>& lens) {
    DatasetOptions o;
    o.eval = true;
    o.background = {1, 1, 1};
    const Dataset ds = open_dataset(ideal.string(), o);
    const std::vector<TargetImage> images = load_images(ds);
    const Scene scene = read_ply((run / "scene.ply").string());
    RenderSettings s;
    s.sh_degree = scene.sh_degree;
    s.background = {1, 1, 1};
    double sum = 0;
    int n = 0;
    for (std::size_t v = 0; v < ds.views.size(); ++v) {
        if (!ds.views[v].test) continue;
        Camera distorted = ds.views[v].camera;
        distorted.model = CameraModel::opencv;
        distorted.distortion = lens;
        const Image<std::uint8_t> mask = undistort_mask(make_undistort_map(distorted), {});
        sum += psnr(cpu::render_forward(scene, ds.views[v].camera, s).rgb, to_float(images[v].rgb), &mask);
        ++n;
    }
    return sum / n;
}

TEST(DistortedCapture, EwaTrainsAsWellAsThroughAnIdealLensAndNeedsTheMask) {
    test::TempDir dir;
    DemoDatasetOptions d;
    d.width = 108;
    d.height = 84;
    d.fov_x_deg = 70;
    // A handheld sweep (a quarter turn), where views share what lies in front of each camera: there, a
    // border trained as black grows dark floaters the neighbouring views see. (Orbiting all round, they
    // mostly hide behind the other cameras.)
    d.arc_deg = 90;
    d.train_views = 20;
    d.test_views = 4;
    d.points = 1500;
    write_demo_dataset((dir / "ideal").string(), d);
    d.distortion = {0.1, 0, 0, 0};
    write_demo_dataset((dir / "phone").string(), d);

    const TrainResult ideal = train(run(dir, "ideal", "ideal_run"));
    TrainConfig mask = run(dir, "phone", "masked_run");
    mask.undistort = Undistort::mask;
    const TrainResult masked = train(mask);
    TrainConfig sharp = mask;
    sharp.output = (dir / "bicubic_run").string();
    sharp.resample = Resample::bicubic;
    train(sharp);
    TrainConfig crop = run(dir, "phone", "crop_run");
    crop.undistort = Undistort::crop;
    crop.resample = Resample::bicubic;
    train(crop);
    // The same capture with the masks dropped: the border is trained as the black it was filled with.
    TrainHooks drop_masks;
    std::size_t excluded = 0;
    drop_masks.on_images = [&](std::vector<TargetImage>& images) {
        for (TargetImage& t : images) {
            excluded += t.rgb.pixels() - t.valid_pixels();
            t.mask = {};
        }
    };
    sharp.output = (dir / "unmasked_run").string();
    const TrainResult unmasked_run = train(sharp, drop_masks);
    // Every model scored alike: on the ideal lens's test photos, over the pixels the distorted lens saw.
    const std::vector<double> lens = d.distortion;
    auto score = [&](const char* run_dir) {
        return psnr_where_the_lens_saw(dir / "ideal", dir / run_dir, lens);
    };
    const double i = score("ideal_run"), m = score("masked_run"), b = score("bicubic_run"),
                 k = score("crop_run"), u = score("unmasked_run");
    std::printf(
        "[distorted] test PSNR where the lens saw, trained through the ideal lens: %.2f dB; through the "
        "distorted one: mask %.2f (bicubic %.2f), crop (bicubic) %.2f, masks dropped (bicubic) %.2f. "
        "Against its own test views: mask %.2f, masks dropped %.2f (scoring the border). %zu border "
        "pixels\n",
        i, m, b, k, u, masked.test_psnr, unmasked_run.test_psnr, excluded);
    EXPECT_GT(excluded, std::size_t(0.04 * d.width * d.height * (d.train_views + d.test_views)));
    // A run written before `undistort` existed (its config.json has no such key) keeps its own intrinsics
    // when re-evaluated or resumed, rather than switching to the crop default.
    const std::string config = (dir / "masked_run/config.json").string();
    nlohmann::json old = nlohmann::json::parse(read_file(config));
    old.erase("undistort");
    write_file_atomic(config, old.dump());
    EXPECT_DOUBLE_EQ(evaluate_model((dir / "masked_run").string(), "", "cpu").test_psnr, masked.test_psnr);
    // Masked, the distorted capture trains as well as the ideal one; what bilinear resampling blurs costs a
    // little more against the truth.
    EXPECT_NEAR(b, i, 0.5);
    EXPECT_NEAR(m, i, 0.75);
    // crop also drops the corners the lens saw and magnifies the rest.
    EXPECT_NEAR(k, i, 1.0);
    // Without the mask it does not.
    EXPECT_LT(u, i - 0.5);
}

}  // namespace
}  // namespace radiant
