// The resolution schedule (issue 20): parsing, the reduced image and camera, and a CPU step at 1/2 of the
// resolution being the step on the reduced camera and image.
#include <gtest/gtest.h>

#include <cmath>

#include "radiant/core/error.hpp"
#include "radiant/core/project.hpp"
#include "radiant/core/reduce_resolution.hpp"
#include "radiant/render/cpu/render_cpu.hpp"
#include "radiant/train/backend.hpp"
#include "radiant/train/demo_dataset.hpp"
#include "radiant/train/loss.hpp"
#include "radiant/train/schedule.hpp"
#include "radiant/train/trainer.hpp"
#include "support/random_scene.hpp"
#include "support/temp_dir.hpp"

namespace radiant {
namespace {

TEST(ResolutionSchedule, ParsesStagesAndRefusesWhatIsWrong) {
    const auto s = parse_resolution_schedule("4:2000,2:6000");
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(resolution_factor(s, 1), 4);
    EXPECT_EQ(resolution_factor(s, 1999), 4);
    EXPECT_EQ(resolution_factor(s, 2000), 2);
    EXPECT_EQ(resolution_factor(s, 5999), 2);
    EXPECT_EQ(resolution_factor(s, 6000), 1);
    EXPECT_EQ(resolution_factor(parse_resolution_schedule(""), 10), 1);
    for (const char* bad : {"4", "4:", "x:100", "4:100,", "1:100", "32:100", "4:0", "2:100,4:200",
                            "4:200,2:100", "4:100;2:200", "4:100 x"})
        EXPECT_THROW(parse_resolution_schedule(bad), Error) << bad;
}

// A block's centre lands where the reduced camera puts its pixel centre.
TEST(ReduceResolution, TheReducedCameraSeesBlocksWhereTheirPixelsAre) {
    const Camera c = test::random_camera(3, 97, 61);
    const Camera r = reduced_camera(c, 4);
    EXPECT_EQ(r.width, 24);
    EXPECT_EQ(r.height, 15);
    const auto full = pinhole_params<double>(c), reduced = pinhole_params<double>(r);
    for (const Vec3<double> p : {Vec3<double>{0.1, -0.2, 0.3}, Vec3<double>{-0.4, 0.25, -0.1}}) {
        const Vec3<double> a = world_to_camera(full, p), b = world_to_camera(reduced, p);
        const double ux = full.fx * a.x / a.z + full.cx, vx = reduced.fx * b.x / b.z + reduced.cx;
        const double uy = full.fy * a.y / a.z + full.cy, vy = reduced.fy * b.y / b.z + reduced.cy;
        EXPECT_NEAR(vx, ux / 4, 1e-9);
        EXPECT_NEAR(vy, uy / 4, 1e-9);
    }
}

TEST(ReduceResolution, BlockMeansAndMasksThatCountOnlyWhole) {
    TargetImage t;
    t.rgb = Image<std::uint8_t>(5, 4, 3);  // a last partial column of blocks: dropped
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 5; ++x)
            for (int c = 0; c < 3; ++c) t.rgb.at(x, y, c) = std::uint8_t(10 * x + 40 * y + c);
    t.mask = Image<std::uint8_t>(5, 4, 1, kMaskValid);
    t.mask.at(3, 2) = kMaskInvalid;
    const TargetImage r = reduced_image(t, 2);
    ASSERT_EQ(r.rgb.width, 2);
    ASSERT_EQ(r.rgb.height, 2);
    // block (1, 1): x 2..3, y 2..3 → mean of 10x + 40y + c = 25 + 100 + c
    EXPECT_EQ(r.rgb.at(1, 1, 0), 125);
    EXPECT_EQ(r.rgb.at(1, 1, 2), 127);
    EXPECT_EQ(r.rgb.at(0, 0, 1), 5 + 20 + 1);  // 26
    EXPECT_EQ(r.mask.at(1, 1), kMaskInvalid);  // one of its pixels must not train
    EXPECT_EQ(r.mask.at(0, 1), kMaskValid);
    EXPECT_EQ(r.mask.at(1, 0), kMaskValid);
}

// The CPU backend's step at factor 2: the same loss as the reduced camera's render against the reduced image.
TEST(ResolutionSchedule, ACpuStepAtHalfResolutionTrainsOnTheReducedImage) {
    test::RandomSceneOptions o;
    o.count = 400;
    o.sh_degree = 0;
    TrainState s;
    s.params = test::random_scene(4, o);
    s.adam.reset_like(s.params);
    s.stats.reset(s.params.size());
    const Camera cam = test::random_camera(6, 64, 48);
    RenderSettings rs;
    rs.sh_degree = 0;
    std::vector<TargetImage> images(1);
    images[0].rgb = Image<std::uint8_t>(64, 48, 3);
    for (std::size_t i = 0; i < images[0].rgb.data.size(); ++i)
        images[0].rgb.data[i] = std::uint8_t(i * 37 % 251);
    images[0].mask = Image<std::uint8_t>(64, 48, 1, kMaskValid);
    for (int x = 0; x < 20; ++x) images[0].mask.at(x, 7) = kMaskInvalid;
    std::unique_ptr<Backend> b = make_backend("cpu");
    b->set_images(images);
    b->load(s);
    StepInput in;
    in.camera = &cam;
    in.settings = rs;
    in.lr = {1e-4, 1e-3, 1e-3, 1e-2, 2.5e-3, 1e-4};
    in.resolution_factor = 2;
    const StepStats st = b->step(in);

    const TargetImage r = reduced_image(images[0], 2);
    const Image<float> render = cpu::render_forward(s.params, reduced_camera(cam, 2), rs).rgb;
    ASSERT_EQ(render.width, 32);
    const LossValue want = photometric_loss(render, to_float(r.rgb), in.lambda_ssim,
                                            static_cast<Image<float>*>(nullptr), &r.mask);
    EXPECT_NEAR(st.loss, want.total, 1e-9);
    // and not the full-resolution loss
    const Image<float> full = cpu::render_forward(s.params, cam, rs).rgb;
    EXPECT_GT(std::abs(photometric_loss(full, to_float(images[0].rgb), in.lambda_ssim,
                                        static_cast<Image<float>*>(nullptr), &images[0].mask)
                           .total -
                       want.total),
              1e-6);
}

// A run with a schedule trains, writes it to config.json, and evaluates at full resolution.
TEST(ResolutionSchedule, ARunWithAScheduleTrainsAndEvaluatesAtFullResolution) {
    test::TempDir dir;
    DemoDatasetOptions d;
    d.width = d.height = 40;
    d.train_views = 8;
    d.test_views = 2;
    d.points = 600;
    write_demo_dataset((dir / "data").string(), d);
    TrainConfig c;
    c.data = (dir / "data").string();
    c.output = (dir / "out").string();
    c.steps = 160;
    c.eval = true;
    c.white_background = true;
    c.adc.start = 20;
    c.adc.stop = 100;
    c.adc.interval = 20;
    c.adc.reset_every = 1000;
    c.sh_degree = 1;
    c.resolution_schedule = "4:40,2:100";
    const TrainResult r = train(c);
    EXPECT_GT(r.test_psnr, 15.0);
    const TrainResult e = evaluate_model(c.output, "", "cpu");
    EXPECT_NEAR(e.test_psnr, r.test_psnr, 1e-9);
}

}  // namespace
}  // namespace radiant
