#include "radiant/train/initialize.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace radiant {
namespace {

TEST(Initialize, FromPointsAsInria) {
    std::vector<Vec3<float>> pts{{0, 0, 0}, {1, 0, 0}, {0, 2, 0}, {0, 0, 3}};
    std::vector<std::array<std::uint8_t, 3>> cols{{255, 0, 128}, {0, 0, 0}, {10, 20, 30}, {1, 2, 3}};
    InitOptions o;
    o.sh_degree = 2;
    const Scene s = scene_from_points(pts, cols, o);
    ASSERT_EQ(s.size(), 4u);
    EXPECT_EQ(s.sh_degree, 2);
    // point 0: neighbours at squared distances 1, 4, 9 → mean 14/3, scale sqrt
    EXPECT_NEAR(std::exp(s.log_scales[0]), std::sqrt(14.0 / 3.0), 1e-5);
    EXPECT_EQ(s.log_scales[0], s.log_scales[2]);  // isotropic
    EXPECT_NEAR(sigmoid(double(s.opacity_logits[0])), 0.1, 1e-6);
    EXPECT_NEAR(s.sh[0] * kShC0 + 0.5, 1.0, 1e-6);
    EXPECT_NEAR(s.sh[2] * kShC0 + 0.5, 128 / 255.0, 1e-6);
    EXPECT_EQ(s.sh[3], 0.0f);  // higher bands start at zero
    EXPECT_EQ(s.quats[0], 1.0f);
    EXPECT_EQ(s.quats[1], 0.0f);
    validate(s, "init");
}

TEST(Initialize, RandomPointsWhenTheDatasetHasNone) {
    Dataset ds;
    ds.format = "nerf-synthetic";
    InitOptions o;
    o.random_points = 5000;
    const Scene s = initial_scene(ds, o);
    ASSERT_EQ(s.size(), 5000u);
    for (float v : s.means) {
        EXPECT_GE(v, -1.3f);
        EXPECT_LE(v, 1.3f);
    }
    // Other layouts: around the focus, out to the farthest camera, only points a training camera sees.
    ds.format = "instant-ngp";
    for (const Camera& c : orbit({10, 0, 0}, 2.0, 20.0, 8, {0, 0, 1}, 40.0, 64, 48)) {
        ds.views.emplace_back();
        ds.views.back().camera = c;
    }
    ds.views.front().test = true;  // a test camera's view does not count
    ds.focus = {10, 0, 0};
    o.initial_scale = 0.1;
    const Scene t = initial_scene(ds, o);
    ASSERT_EQ(t.size(), 5000u);
    double half = 0;
    for (const DatasetView& v : ds.views) half = std::max(half, length(v.camera.centre() - ds.focus));
    for (std::size_t i = 0; i < t.size(); ++i) {
        const Vec3<double> p{t.means[3 * i], t.means[3 * i + 1], t.means[3 * i + 2]};
        for (int c = 0; c < 3; ++c) EXPECT_LE(std::abs(p[c] - ds.focus[c]), half + 1e-5);
        bool seen = false;
        for (std::size_t v = 1; v < ds.views.size(); ++v) {
            const Camera& cam = ds.views[v].camera;
            const Vec3<double> q = cam.R * p + cam.t;
            const double x = cam.fx * q.x / q.z + cam.cx, y = cam.fy * q.y / q.z + cam.cy;
            seen = seen || (q.z > 0 && x >= 0 && y >= 0 && x < cam.width && y < cam.height);
        }
        EXPECT_TRUE(seen) << "point " << i;
    }
    // init_scale multiplies every scale: compare with the same points at scale 1.
    std::vector<Vec3<float>> pts;
    std::vector<std::array<std::uint8_t, 3>> cols(t.size());
    for (std::size_t i = 0; i < t.size(); ++i)
        pts.push_back({t.means[3 * i], t.means[3 * i + 1], t.means[3 * i + 2]});
    const Scene unit = scene_from_points(pts, cols, {});
    EXPECT_NEAR(t.log_scales[0] - unit.log_scales[0], std::log(0.1), 1e-5);
}

}  // namespace
}  // namespace radiant
