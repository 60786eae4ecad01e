#include "radiant/core/ewa.hpp"

#include <gtest/gtest.h>

#include <random>

#include "radiant/core/covariance.hpp"

namespace radiant {
namespace {

// A small, distant Gaussian: the linearised projection (EWA) must match the covariance of projected samples.
TEST(Ewa, Cov2dMatchesProjectedSampleCovariance) {
    Camera c = look_at({0.5, -0.3, -2}, {0, 0, 18}, {0, -1, 0}, 50, 1024, 768);
    c.fx *= 1.1;
    const auto cam = pinhole_params<double>(c);
    std::mt19937 rng(11);
    std::normal_distribution<double> n(0, 1);
    for (int trial = 0; trial < 4; ++trial) {
        const Vec3<double> mean{0.8 * n(rng), 0.6 * n(rng), 18 + n(rng)};
        const Vec3<double> ls{std::log(0.02 + 0.02 * std::abs(n(rng))),
                              std::log(0.01 + 0.03 * std::abs(n(rng))), std::log(0.03)};
        const Vec4<double> q{n(rng), n(rng), n(rng), n(rng)};
        const Mat3<double> m = quat_to_rotmat(q) * Mat3<double>::diagonal(exp3(ls));
        const Mat3<double> cov_cam = cam.R * covariance(ls, q) * transpose(cam.R);
        const Vec3<double> p_cam = world_to_camera(cam, mean);
        const Sym2<double> ewa = ewa_cov2d(cam, p_cam, cov_cam, 0.0);

        const int samples = 400000;
        double su = 0, sv = 0, suu = 0, suv = 0, svv = 0;
        for (int i = 0; i < samples; ++i) {
            Vec3<double> x = mean + m * Vec3<double>{n(rng), n(rng), n(rng)};
            Vec2<double> px = project_pinhole(cam, world_to_camera(cam, x));
            su += px.x;
            sv += px.y;
            suu += px.x * px.x;
            suv += px.x * px.y;
            svv += px.y * px.y;
        }
        const double mu = su / samples, mv = sv / samples;
        const Sym2<double> sample{suu / samples - mu * mu, suv / samples - mu * mv, svv / samples - mv * mv};
        const double scale = std::max(ewa.a, ewa.c);
        // Monte-Carlo error ~ sqrt(2 / samples) ≈ 0.2 %; linearisation error ~ (σ/z)² is far smaller.
        EXPECT_NEAR(sample.a, ewa.a, 0.01 * scale) << "trial " << trial;
        EXPECT_NEAR(sample.b, ewa.b, 0.01 * scale) << "trial " << trial;
        EXPECT_NEAR(sample.c, ewa.c, 0.01 * scale) << "trial " << trial;
        const Vec2<double> centre = project_pinhole(cam, p_cam);
        EXPECT_NEAR(mu, centre.x, 0.01 * std::sqrt(scale));
        EXPECT_NEAR(mv, centre.y, 0.01 * std::sqrt(scale));
    }
}

// The compensation keeps a splat's integral: opacity × 2π√det Σ' with the filtered Σ' equals that of Σ.
TEST(Ewa, AntialiasingCompensationKeepsTheEnergy) {
    const double eps = 0.3;
    for (const Sym2<double> raw : {Sym2<double>{0.2, 0.0, 0.2}, Sym2<double>{4.0, 1.5, 2.0},
                                   Sym2<double>{0.05, -0.02, 0.4}, Sym2<double>{900.0, 30.0, 400.0}}) {
        const Sym2<double> filtered{raw.a + eps, raw.b, raw.c + eps};
        const double comp = aa_compensation(filtered, eps);
        const double det_raw = raw.a * raw.c - raw.b * raw.b;
        const double det_filtered = filtered.a * filtered.c - filtered.b * filtered.b;
        EXPECT_NEAR(comp * std::sqrt(det_filtered), std::sqrt(det_raw), 1e-12 * std::sqrt(det_filtered));
        EXPECT_GT(comp, 0.0);
        EXPECT_LT(comp, 1.0);
    }
    EXPECT_NEAR(aa_compensation(Sym2<double>{0.5, 0.0, 0.5}, 0.3), 0.2 / 0.5, 1e-15);  // isotropic: σ²/(σ²+ε)
    EXPECT_EQ(aa_compensation(Sym2<double>{0.3, 0.0, 0.3}, 0.3), 0.0);                 // a point: all filter
}

TEST(Ewa, AntialiasingCompensationGradientMatchesCentralDifferences) {
    const double eps = 0.3, h = 1e-6;
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(0.05, 3.0), ub(-0.5, 0.5);
    for (int trial = 0; trial < 20; ++trial) {
        const Sym2<double> raw{u(rng), 0, u(rng)};
        const Sym2<double> c{raw.a + eps, ub(rng) * std::sqrt(raw.a * raw.c), raw.c + eps};
        const double v = 1.7;
        const Sym2<double> g = aa_compensation_vjp(c, eps, v);
        auto f = [&](Sym2<double> x) { return v * aa_compensation(x, eps); };
        const double fd_a = (f({c.a + h, c.b, c.c}) - f({c.a - h, c.b, c.c})) / (2 * h);
        const double fd_b = (f({c.a, c.b + h, c.c}) - f({c.a, c.b - h, c.c})) / (2 * h);
        const double fd_c = (f({c.a, c.b, c.c + h}) - f({c.a, c.b, c.c - h})) / (2 * h);
        const double scale = std::abs(fd_a) + std::abs(fd_b) + std::abs(fd_c);
        EXPECT_NEAR(g.a, fd_a, 1e-6 * scale) << trial;
        EXPECT_NEAR(g.b, fd_b, 1e-6 * scale) << trial;
        EXPECT_NEAR(g.c, fd_c, 1e-6 * scale) << trial;
    }
}

TEST(Ewa, LowPassAddsToTheDiagonal) {
    Camera c = look_at({0, 0, -3}, {0, 0, 0}, {0, -1, 0}, 50, 64, 64);
    const auto cam = pinhole_params<double>(c);
    const Mat3<double> cov = covariance<double>({-2, -2.5, -3}, {1, 0.2, 0.1, 0});
    const Vec3<double> p{0.1, 0.2, 3};
    Sym2<double> a = ewa_cov2d(cam, p, cov, 0.0), b = ewa_cov2d(cam, p, cov, 0.3);
    EXPECT_NEAR(b.a - a.a, 0.3, 1e-12);
    EXPECT_NEAR(b.c - a.c, 0.3, 1e-12);
    EXPECT_DOUBLE_EQ(b.b, a.b);
}

TEST(Ewa, InverseOfSymmetric2x2) {
    Sym2<double> m{2.0, 0.5, 1.0}, inv;
    ASSERT_TRUE(inverse(m, inv));
    EXPECT_NEAR(m.a * inv.a + m.b * inv.b, 1.0, 1e-15);
    EXPECT_NEAR(m.a * inv.b + m.b * inv.c, 0.0, 1e-15);
    EXPECT_NEAR(m.b * inv.b + m.c * inv.c, 1.0, 1e-15);
    EXPECT_FALSE(inverse(Sym2<double>{1.0, 2.0, 1.0}, inv));  // indefinite
}

TEST(Ewa, ExtentFollowsOpacityAndIsCapped) {
    const double cutoff = 1.0 / 255;
    EXPECT_NEAR(footprint_extent_sq(0.02, cutoff, 3.0), 2 * std::log(0.02 * 255), 1e-12);
    EXPECT_DOUBLE_EQ(footprint_extent_sq(0.99, cutoff, 3.0), 9.0);  // 2 ln(252) = 11.06 > 9
    EXPECT_LE(footprint_extent_sq(0.5 / 255, cutoff, 3.0), 0.0);
}

}  // namespace
}  // namespace radiant
