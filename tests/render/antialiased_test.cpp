// Mip-Splatting's 2D filter (--antialiased): a scene drawn at a quarter of the resolution it was made for
// stays close to the truth — a supersampled render averaged down — where the classic low-pass alone draws
// its small splats too thick and too bright (issue 22).
#include <gtest/gtest.h>

#include <cmath>

#include "radiant/core/error.hpp"
#include "radiant/core/scene.hpp"
#include "radiant/render/cpu/render_cpu.hpp"
#include "support/random_scene.hpp"

namespace radiant {
namespace {

Image<float> render(const Scene& scene, int size, const RenderSettings& s) {
    const Camera cam = test::random_camera(77, size, size, 3.5, 50);
    return cpu::render_forward(scene, cam, s).rgb;
}

// Each output pixel the mean of the factor × factor pixels it covers.
Image<float> box_down(const Image<float>& in, int factor) {
    Image<float> out(in.width / factor, in.height / factor, 3);
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x)
            for (int c = 0; c < 3; ++c) {
                double sum = 0;
                for (int dy = 0; dy < factor; ++dy)
                    for (int dx = 0; dx < factor; ++dx) sum += in.at(x * factor + dx, y * factor + dy, c);
                out.at(x, y, c) = float(sum / (factor * factor));
            }
    return out;
}

double rmse(const Image<float>& a, const Image<float>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.data.size(); ++i) s += std::pow(double(a.data[i]) - double(b.data[i]), 2);
    return std::sqrt(s / double(a.data.size()));
}

TEST(Antialiased, ZoomedOutRenderStaysCloserToTheSupersampledTruth) {
    // Splats about a pixel wide at 256 px; drawn at 64 px they are a quarter of a pixel.
    test::RandomSceneOptions o;
    o.count = 4000;
    o.log_scale_mean = -4.3;
    o.log_scale_sd = 0.3;
    o.opacity_logit_sd = 1.0;
    const Scene scene = test::random_scene(21, o);
    RenderSettings truth_settings;
    truth_settings.eps2d = 0.01;  // at 512 px the splats are 2 px: sampled finely, hardly filtered
    const Image<float> truth = box_down(render(scene, 512, truth_settings), 8);

    RenderSettings classic, antialiased;
    antialiased.antialiased = true;
    const double err_classic = rmse(render(scene, 64, classic), truth);
    const double err_antialiased = rmse(render(scene, 64, antialiased), truth);
    std::printf("[antialiased] 64 px against 512 px averaged: RMSE classic %.4f, antialiased %.4f\n",
                err_classic, err_antialiased);
    EXPECT_LT(err_antialiased, 0.6 * err_classic);

    // At the resolution the splats were made for, both are close to each other.
    const Image<float> full_classic = render(scene, 256, classic), full_aa = render(scene, 256, antialiased);
    const Image<float> full_truth = box_down(render(scene, 512, truth_settings), 2);
    std::printf("[antialiased] 256 px against 512 px averaged: RMSE classic %.4f, antialiased %.4f\n",
                rmse(full_classic, full_truth), rmse(full_aa, full_truth));
    EXPECT_LT(rmse(full_aa, full_truth), rmse(full_classic, full_truth));
}

TEST(Antialiased, RefusedWhereItHasNoMeaning) {
    RenderSettings s;
    s.antialiased = true;
    s.shading = Shading::ray;
    EXPECT_THROW(validate(s), Error);
    s.shading = Shading::ewa;
    s.eps2d = 0;
    EXPECT_THROW(validate(s), Error);
    s.eps2d = 0.3;
    EXPECT_NO_THROW(validate(s));
}

}  // namespace
}  // namespace radiant
