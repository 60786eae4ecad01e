#include "radiant/core/capture_frame.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "radiant/core/error.hpp"

namespace radiant {
namespace {

// The cameras' world turned by `q` about the origin (x' = Q x): what COLMAP's arbitrary world frame does.
std::vector<Camera> turned(std::vector<Camera> cams, const Mat3<double>& Q) {
    for (Camera& c : cams) {
        const Vec3<double> centre = Q * c.centre();
        c.R = c.R * transpose(Q);
        c.t = -1.0 * (c.R * centre);
    }
    return cams;
}

Vec3<double> up_of(const Camera& c) {
    return {-c.R[1][0], -c.R[1][1], -c.R[1][2]};
}
Vec3<double> forward_of(const Camera& c) {
    return {c.R[2][0], c.R[2][1], c.R[2][2]};
}

Mat3<double> some_rotation() {
    // 40° about (1, 2, 3)
    const Vec3<double> a = normalize(Vec3<double>{1, 2, 3});
    const double th = 40 * std::numbers::pi / 180, c = std::cos(th), s = std::sin(th);
    Mat3<double> m;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m.m[i][j] = (i == j ? c : 0) + (1 - c) * a[i] * a[j];
    m.m[0][1] -= s * a.z;
    m.m[0][2] += s * a.y;
    m.m[1][0] += s * a.z;
    m.m[1][2] -= s * a.x;
    m.m[2][0] -= s * a.y;
    m.m[2][1] += s * a.x;
    return m;
}

// An orbit capture in a rotated world: the frame finds the focus, up, distance and height the cameras had,
// and the orbit flies there upright, starting at the first camera.
TEST(CaptureFrame, OrbitFollowsTheCapturesUpAndHeight) {
    const Mat3<double> Q = some_rotation();
    const Vec3<double> focus0{10, -1, 2}, up0{0, 0, 1};
    std::vector<Camera> cams = turned(orbit(focus0, 3.0, 25.0, 12, up0, 50.0, 64, 48), Q);
    cams.pop_back();  // eleven of twelve: still round the focus
    const CaptureFrame f = capture_frame(cams);
    const Vec3<double> focus = Q * focus0, up = Q * up0;
    EXPECT_LT(length(f.focus - focus), 1e-6);
    EXPECT_GT(dot(f.up, up), 1 - 1e-9);
    EXPECT_NEAR(f.radius, 3.0, 1e-6);
    EXPECT_NEAR(f.elevation * 180 / std::numbers::pi, 25.0, 1e-6);
    EXPECT_GT(f.span, std::numbers::pi);
    EXPECT_NEAR(f.fov_y_deg, 50.0, 1e-6);
    const std::vector<Camera> path = capture_orbit(f, 8);
    ASSERT_EQ(path.size(), 8u);
    EXPECT_EQ(path[0].name, "000");
    EXPECT_LT(length(path[0].centre() - cams[0].centre()), 1e-6);
    for (const Camera& c : path) {
        EXPECT_NEAR(length(c.centre() - focus), 3.0, 1e-6);
        EXPECT_GT(dot(forward_of(c), normalize(focus - c.centre())), 1 - 1e-9);  // looks at the focus
        EXPECT_GT(dot(up_of(c), up), 0.85);                                      // upright (25° down)
        EXPECT_NEAR(dot(c.centre() - focus, up), 3.0 * std::sin(25 * std::numbers::pi / 180), 1e-6);
    }
    // The old framing of a Gaussian cloud assumed world up −y: in this world it would show the scene on
    // its side, which is what the frame is for.
    EXPECT_LT(std::abs(dot(f.up, Vec3<double>{0, -1, 0})), 0.9);
}

// A forward-facing capture (cameras side by side, looking the same way) has nothing behind it: the path
// sweeps the arc the cameras cover and comes back, never circling round.
TEST(CaptureFrame, ForwardFacingCaptureIsSweptNotCircled) {
    std::vector<Camera> cams;
    for (int i = 0; i < 9; ++i) {
        const double x = -1.0 + 0.25 * i, y = 0.1 * (i % 3);
        // an LLFF-like rig: side by side, aimed a little inwards
        cams.push_back(look_at({x, y, -4}, {0.2 * x, 0, 0}, {0, -1, 0}, 45.0, 80, 60));
    }
    const CaptureFrame f = capture_frame(cams);
    EXPECT_LT(f.span, std::numbers::pi);
    const std::vector<Camera> path = capture_orbit(f, 16);
    double lo = 1e9, hi = -1e9;
    for (const Camera& c : cams) lo = std::min(lo, c.centre().x), hi = std::max(hi, c.centre().x);
    for (const Camera& c : path) {
        EXPECT_LT(c.centre().z, 0) << "behind the scene";
        EXPECT_GE(c.centre().x, lo - 0.3);
        EXPECT_LE(c.centre().x, hi + 0.3);
        EXPECT_GT(dot(up_of(c), Vec3<double>{0, -1, 0}), 0.9);
    }
}

TEST(CaptureFrame, RefusesNoCameras) {
    EXPECT_THROW(capture_frame({}), Error);
}

}  // namespace
}  // namespace radiant
