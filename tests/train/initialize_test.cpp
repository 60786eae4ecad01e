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
    ds.format = "instant-ngp";
    ds.centre = {10, 0, 0};
    ds.extent = 2.2;
    const Scene t = initial_scene(ds, o);
    for (std::size_t i = 0; i < t.size(); ++i) EXPECT_NEAR(t.means[3 * i], 10.0f, 2.0f + 1e-5f);
}

}  // namespace
}  // namespace radiant
