// Issue 24: the camera paths of fly-through videos pass through the capture's cameras smoothly.
#include "radiant/core/camera_path.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "radiant/core/camera_grad.hpp"
#include "radiant/core/error.hpp"

namespace radiant {
namespace {

double angle_between(const Mat3<double>& a, const Mat3<double>& b) {
    const Mat3<double> d = a * transpose(b);
    return std::acos(std::clamp((d.m[0][0] + d.m[1][1] + d.m[2][2] - 1) / 2, -1.0, 1.0));
}

TEST(CameraPath, QuaternionsRoundTripEveryRotation) {
    std::mt19937 rng(3);
    std::normal_distribution<double> n(0, 1);
    for (int i = 0; i < 200; ++i) {
        Vec3<double> axis{n(rng), n(rng), n(rng)};
        axis = normalize(axis);
        // Angles up to π, where the trace alone loses the axis (Shepperd's branches).
        const double angle = i < 20 ? 3.14159265358979 - 1e-9 * i : 3.14159265358979 * (i % 50) / 50.0;
        const Mat3<double> r = so3_exp(angle * axis);
        const Vec4<double> q = rotation_to_quat(r);
        EXPECT_GE(q.x, 0);
        EXPECT_NEAR(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w, 1.0, 1e-12);
        EXPECT_LT(angle_between(quat_to_rotation(q), r), 1e-7) << "angle " << angle;
    }
}

std::vector<Camera> walk(int n) {
    std::vector<Camera> keys;
    for (int i = 0; i < n; ++i) {
        const double a =
            0.2 * i + 0.08 * i * i;  // uneven: a path straight between keys jumps in speed at each
        Camera c =
            look_at({3 * std::cos(a), -0.5 - 0.1 * i, 3 * std::sin(a)}, {0, 0, 0}, {0, -1, 0}, 50, 64, 48);
        c.model = CameraModel::opencv;
        c.distortion = {0.1, 0, 0, 0};
        keys.push_back(c);
    }
    return keys;
}

TEST(CameraPath, ThroughTheKeysAndSmoothBetween) {
    const std::vector<Camera> keys = walk(6);
    const int per_segment = 10;
    const std::vector<Camera> path = interpolate_cameras(keys, 5 * per_segment + 1);
    ASSERT_EQ(path.size(), 51u);
    for (std::size_t k = 0; k < keys.size(); ++k) {
        const Camera& c = path[k * per_segment];
        const Vec3<double> d = c.centre() - keys[k].centre();
        EXPECT_LT(std::sqrt(dot(d, d)), 1e-9) << "key " << k;
        EXPECT_LT(angle_between(c.R, keys[k].R), 1e-7) << "key " << k;
        EXPECT_EQ(c.model, CameraModel::pinhole);  // a new view has no lens
        EXPECT_TRUE(c.distortion.empty());
        EXPECT_EQ(c.width, 64);
    }
    // Smooth: no step jumps — each is within 25 % of its neighbour's, in distance and in turn.
    for (std::size_t i = 1; i + 1 < path.size(); ++i) {
        const Vec3<double> a = path[i].centre() - path[i - 1].centre(),
                           b = path[i + 1].centre() - path[i].centre();
        const double la = std::sqrt(dot(a, a)), lb = std::sqrt(dot(b, b));
        EXPECT_NEAR(lb / la, 1.0, 0.25) << "frame " << i;
        const double ta = angle_between(path[i].R, path[i - 1].R),
                     tb = angle_between(path[i + 1].R, path[i].R);
        EXPECT_NEAR(tb / ta, 1.0, 0.25) << "frame " << i;
        EXPECT_NEAR(std::abs(dot(path[i].R * Vec3<double>{1, 0, 0}, path[i].R * Vec3<double>{0, 1, 0})), 0,
                    1e-9);
    }
    EXPECT_THROW(interpolate_cameras({keys[0]}, 10), Error);
}

TEST(CameraPath, SpiralLooksAtTheFocusFromAroundIt) {
    std::vector<Camera> ring;
    for (int i = 0; i < 12; ++i) {
        const double a = 2 * 3.14159265358979 * i / 12;
        ring.push_back(look_at({2 * std::cos(a), -1, 2 * std::sin(a)}, {0, 0, 0}, {0, -1, 0}, 45, 80, 60));
    }
    const CaptureFrame f = capture_frame(ring);
    const std::vector<Camera> spiral = capture_spiral(f, 40);
    ASSERT_EQ(spiral.size(), 40u);
    double lowest = 1e9, highest = -1e9;
    for (const Camera& c : spiral) {
        const Vec3<double> p = c.R * f.focus + c.t;  // the focus, in camera coordinates: straight ahead
        EXPECT_GT(p.z, 0);
        EXPECT_NEAR(p.x / p.z, 0, 1e-9);
        EXPECT_NEAR(p.y / p.z, 0, 1e-9);
        const double height = dot(c.centre() - f.focus, f.up);
        lowest = std::min(lowest, height);
        highest = std::max(highest, height);
    }
    EXPECT_GT(highest - lowest, 0.1 * f.radius);  // it rises and sinks
}

}  // namespace
}  // namespace radiant
