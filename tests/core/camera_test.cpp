#include "radiant/core/camera.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "radiant/core/error.hpp"

namespace radiant {
namespace {

TEST(Camera, ProjectsKnownPointsToHandComputedPixels) {
    Camera c;
    c.width = 100;
    c.height = 80;
    c.fx = 100;
    c.fy = 120;
    c.cx = 50;
    c.cy = 40;
    auto cam = pinhole_params<double>(c);
    Vec2<double> px = project_pinhole(cam, world_to_camera(cam, Vec3<double>{1, 2, 4}));
    EXPECT_DOUBLE_EQ(px.x, 100.0 * 1 / 4 + 50);  // 75
    EXPECT_DOUBLE_EQ(px.y, 120.0 * 2 / 4 + 40);  // 100

    // Rotated 90° about y (world x → camera −z ... written out by hand) and translated by t = (0, 0, 5):
    // R = [[0, 0, −1], [0, 1, 0], [1, 0, 0]]; world (2, 1, 0.5) → cam (−0.5, 1, 2) + t = (−0.5, 1, 7).
    c.R = Mat3<double>{};
    c.R.m[0][2] = -1;
    c.R.m[1][1] = 1;
    c.R.m[2][0] = 1;
    c.t = {0, 0, 5};
    cam = pinhole_params<double>(c);
    Vec3<double> p = world_to_camera(cam, Vec3<double>{2, 1, 0.5});
    EXPECT_DOUBLE_EQ(p.x, -0.5);
    EXPECT_DOUBLE_EQ(p.y, 1.0);
    EXPECT_DOUBLE_EQ(p.z, 7.0);
    px = project_pinhole(cam, p);
    EXPECT_DOUBLE_EQ(px.x, 100.0 * -0.5 / 7 + 50);
    EXPECT_DOUBLE_EQ(px.y, 120.0 * 1 / 7 + 40);
    EXPECT_NO_THROW(validate(c, "test"));
    Vec3<double> centre = c.centre();  // −Rᵀt = −(5, 0, 0)... Rᵀ t = (5, 0, 0)
    EXPECT_DOUBLE_EQ(centre.x, -5.0);
    EXPECT_DOUBLE_EQ(centre.y, 0.0);
    EXPECT_DOUBLE_EQ(centre.z, 0.0);
}

TEST(Camera, LookAtPutsTargetAtCentreAndUpAtTop) {
    Camera c = look_at({0, 0, -5}, {0, 0, 0}, {0, -1, 0}, 60, 640, 480);
    validate(c, "look_at");
    auto cam = pinhole_params<double>(c);
    Vec2<double> centre = project_pinhole(cam, world_to_camera(cam, Vec3<double>{0, 0, 0}));
    EXPECT_NEAR(centre.x, 320, 1e-9);
    EXPECT_NEAR(centre.y, 240, 1e-9);
    Vec2<double> up = project_pinhole(cam, world_to_camera(cam, Vec3<double>{0, -1, 0}));
    EXPECT_LT(up.y, 240);  // world up appears above the centre
    Vec2<double> right = project_pinhole(cam, world_to_camera(cam, Vec3<double>{1, 0, 0}));
    EXPECT_GT(right.x, 320);
    EXPECT_NEAR(c.fy, 240 / std::tan(30 * std::numbers::pi / 180), 1e-9);
}

TEST(Camera, OrbitKeepsRadiusAndLooksAtCentre) {
    Vec3<double> centre{1, 2, 3};
    auto cams = orbit(centre, 4.0, 30, 12, {0, 0, 1}, 50, 320, 240);
    ASSERT_EQ(cams.size(), 12u);
    for (const Camera& c : cams) {
        EXPECT_NEAR(length(c.centre() - centre), 4.0, 1e-9);
        auto cam = pinhole_params<double>(c);
        Vec2<double> px = project_pinhole(cam, world_to_camera(cam, centre));
        EXPECT_NEAR(px.x, 160, 1e-6);
        EXPECT_NEAR(px.y, 120, 1e-6);
    }
}

TEST(Camera, ValidateRejectsBadCameras) {
    Camera good = look_at({0, 0, -5}, {0, 0, 0}, {0, -1, 0}, 60, 64, 48);
    Camera c = good;
    c.fx = 0;
    EXPECT_THROW(validate(c, "c"), Error);
    c = good;
    c.width = 0;
    EXPECT_THROW(validate(c, "c"), Error);
    c = good;
    c.R.m[0][0] *= -1;
    c.R.m[0][1] *= -1;
    c.R.m[0][2] *= -1;  // a reflection
    EXPECT_THROW(validate(c, "c"), Error);
    c = good;
    c.R.m[1][1] *= 2;
    EXPECT_THROW(validate(c, "c"), Error);
    c = good;
    c.t.x = NAN;
    EXPECT_THROW(validate(c, "c"), Error);
    c = good;
    c.model = CameraModel::opencv;
    c.distortion = {0.1, 0.2, 0.3};
    EXPECT_THROW(validate(c, "c"), Error);
    c.distortion = {0.1, 0.2, 0.0, 0.0};
    EXPECT_NO_THROW(validate(c, "c"));
    EXPECT_THROW(look_at({0, 0, 0}, {0, 0, 0}, {0, 1, 0}, 60, 64, 48), Error);
    EXPECT_THROW(look_at({0, 0, 0}, {0, 1, 0}, {0, 1, 0}, 60, 64, 48), Error);
}

}  // namespace
}  // namespace radiant
