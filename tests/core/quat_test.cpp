#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "radiant/core/covariance.hpp"
#include "radiant/core/quat.hpp"

namespace radiant {
namespace {

TEST(Quat, RotationIsOrthonormalForAnyQuaternion) {
    std::mt19937 rng(3);
    std::normal_distribution<double> n(0, 1);
    for (int i = 0; i < 100; ++i) {
        Vec4<double> q{n(rng), n(rng), n(rng), n(rng)};
        Mat3<double> r = quat_to_rotmat(q);
        Mat3<double> rrt = r * transpose(r);
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) EXPECT_NEAR(rrt.m[a][b], a == b ? 1.0 : 0.0, 1e-12);
        Vec3<double> c0{r.m[0][0], r.m[1][0], r.m[2][0]}, c1{r.m[0][1], r.m[1][1], r.m[2][1]},
            c2{r.m[0][2], r.m[1][2], r.m[2][2]};
        EXPECT_NEAR(dot(cross(c0, c1), c2), 1.0, 1e-12);
    }
}

TEST(Quat, KnownRotation) {
    // 90° about z, stored w, x, y, z, not normalised: x → y.
    Vec4<double> q{2 * std::cos(M_PI / 4), 0, 0, 2 * std::sin(M_PI / 4)};
    Vec3<double> v = quat_to_rotmat(q) * Vec3<double>{1, 0, 0};
    EXPECT_NEAR(v.x, 0, 1e-12);
    EXPECT_NEAR(v.y, 1, 1e-12);
    EXPECT_NEAR(v.z, 0, 1e-12);
}

TEST(Covariance, HasScalesSquaredAlongRotatedAxes) {
    Vec3<double> ls{std::log(0.5), std::log(2.0), std::log(0.1)};
    Vec4<double> q{0.3, -0.5, 0.7, 0.2};
    Mat3<double> cov = covariance(ls, q), r = quat_to_rotmat(q);
    for (int k = 0; k < 3; ++k) {
        Vec3<double> axis{r.m[0][k], r.m[1][k], r.m[2][k]};
        Vec3<double> cv = cov * axis;
        double s = std::exp(ls[k]);
        for (int j = 0; j < 3; ++j) EXPECT_NEAR(cv[j], s * s * axis[j], 1e-12);
    }
}

TEST(Covariance, AnisotropyClampRaisesSmallScales) {
    Vec3<double> ls{std::log(1.0), std::log(0.01), std::log(0.5)};
    Vec3<double> c = clamp_anisotropy(ls, 10.0);
    EXPECT_NEAR(std::exp(c.y), 0.1, 1e-12);
    EXPECT_EQ(c.x, ls.x);
    EXPECT_EQ(c.z, ls.z);
    Vec3<double> off = clamp_anisotropy(ls, 0.0);
    EXPECT_EQ(off.y, ls.y);
}

}  // namespace
}  // namespace radiant
