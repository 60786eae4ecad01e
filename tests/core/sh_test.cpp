#include "radiant/core/sh.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <random>

namespace radiant {
namespace {

constexpr double kPi = std::numbers::pi;

// Real spherical harmonics written independently in spherical angles (with the Condon–Shortley phase, as
// Inria 3DGS), from the textbook closed forms. x = sinθ cosφ, y = sinθ sinφ, z = cosθ.
double closed_form(int k, double th, double ph) {
    const double st = std::sin(th), ct = std::cos(th), sp = std::sin(ph), cp = std::cos(ph);
    switch (k) {
        case 0:
            return 0.5 * std::sqrt(1 / kPi);
        case 1:
            return -std::sqrt(3 / (4 * kPi)) * st * sp;
        case 2:
            return std::sqrt(3 / (4 * kPi)) * ct;
        case 3:
            return -std::sqrt(3 / (4 * kPi)) * st * cp;
        case 4:
            return 0.25 * std::sqrt(15 / kPi) * st * st * std::sin(2 * ph);
        case 5:
            return -0.5 * std::sqrt(15 / kPi) * st * ct * sp;
        case 6:
            return 0.25 * std::sqrt(5 / kPi) * (3 * ct * ct - 1);
        case 7:
            return -0.5 * std::sqrt(15 / kPi) * st * ct * cp;
        case 8:
            return 0.25 * std::sqrt(15 / kPi) * st * st * std::cos(2 * ph);
        case 9:
            return -0.25 * std::sqrt(35 / (2 * kPi)) * st * st * st * std::sin(3 * ph);
        case 10:
            return 0.25 * std::sqrt(105 / kPi) * st * st * ct * std::sin(2 * ph);
        case 11:
            return -0.25 * std::sqrt(21 / (2 * kPi)) * st * (5 * ct * ct - 1) * sp;
        case 12:
            return 0.25 * std::sqrt(7 / kPi) * (5 * ct * ct * ct - 3 * ct);
        case 13:
            return -0.25 * std::sqrt(21 / (2 * kPi)) * st * (5 * ct * ct - 1) * cp;
        case 14:
            return 0.25 * std::sqrt(105 / kPi) * st * st * ct * std::cos(2 * ph);
        case 15:
            return -0.25 * std::sqrt(35 / (2 * kPi)) * st * st * st * std::cos(3 * ph);
    }
    return NAN;
}

TEST(Sh, BasisMatchesClosedForms) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(0, 1);
    for (int i = 0; i < 200; ++i) {
        double th = std::acos(2 * u(rng) - 1), ph = 2 * kPi * u(rng);
        Vec3<double> dir{std::sin(th) * std::cos(ph), std::sin(th) * std::sin(ph), std::cos(th)};
        double b[16];
        sh_basis(3, dir, b);
        for (int k = 0; k < 16; ++k) EXPECT_NEAR(b[k], closed_form(k, th, ph), 1e-12) << "k=" << k;
    }
}

TEST(Sh, BasisIsOrthonormalOnTheSphere) {
    // Fibonacci-sphere quadrature.
    const int n = 200000;
    double gram[16][16] = {};
    for (int i = 0; i < n; ++i) {
        double z = 1 - (2 * i + 1.0) / n, r = std::sqrt(1 - z * z), ph = i * kPi * (3 - std::sqrt(5.0));
        double b[16];
        sh_basis(3, Vec3<double>{r * std::cos(ph), r * std::sin(ph), z}, b);
        for (int a = 0; a < 16; ++a)
            for (int c = 0; c < 16; ++c) gram[a][c] += b[a] * b[c];
    }
    for (int a = 0; a < 16; ++a)
        for (int c = 0; c < 16; ++c) EXPECT_NEAR(4 * kPi * gram[a][c] / n, a == c ? 1.0 : 0.0, 1e-3);
}

TEST(Sh, ColourUsesOnlyTheActiveDegreeAndClampsAtZero) {
    // coefficients [16, 3]; DC = 0 so colour = 0.5 + view-dependent part
    double coeffs[48] = {};
    coeffs[3 * 2 + 0] = 1.0;   // k = 2 (z), red
    coeffs[3 * 9 + 1] = 10.0;  // k = 9 (degree 3), green
    Vec3<double> dir{0, 0, 1};
    Vec3<double> c0 = sh_to_colour(0, coeffs, dir);
    EXPECT_DOUBLE_EQ(c0.x, 0.5);
    Vec3<double> c1 = sh_to_colour(1, coeffs, dir);
    EXPECT_NEAR(c1.x, 0.5 + kShC1, 1e-15);
    Vec3<double> d = normalize(Vec3<double>{0.3, 0.8, 0.2});
    Vec3<double> c3 = sh_to_colour(3, coeffs, d);
    double b[16];
    sh_basis(3, d, b);
    EXPECT_NEAR(c3.y, std::max(0.0, 0.5 + 10 * b[9]), 1e-12);
    coeffs[0] = -5;  // red DC strongly negative → clamped
    bool clamped[3];
    EXPECT_EQ(sh_to_colour(3, coeffs, d, clamped).x, 0.0);
    EXPECT_TRUE(clamped[0]);
}

TEST(Sh, BasisGradientMatchesFiniteDifferences) {
    Vec3<double> p{0.3, -0.5, 0.7};
    Vec3<double> g[16];
    sh_basis_grad(3, p, g);
    const double h = 1e-6;
    for (int axis = 0; axis < 3; ++axis) {
        Vec3<double> a = p, b = p;
        a[axis] += h;
        b[axis] -= h;
        double ba[16], bb[16];
        sh_basis(3, a, ba);
        sh_basis(3, b, bb);
        for (int k = 0; k < 16; ++k)
            EXPECT_NEAR(g[k][axis], (ba[k] - bb[k]) / (2 * h), 1e-8) << k << " " << axis;
    }
}

// What the CUDA optimizer forms an SH gradient from (ShGradSource: the colour gradient past the clamp and
// the direction) gives the vjp's coefficient gradients exactly, at every active degree of a degree-3 row,
// with clamped channels contributing nothing; coefficients past the active degree get 0.
template <class T>
void check_sources_give_the_vjp(std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> n(0.0, 1.0);
    int clamped_channels = 0;
    for (int trial = 0; trial < 200; ++trial)
        for (int degree = 0; degree <= 3; ++degree) {
            T coeffs[48];
            for (T& c : coeffs) c = T(0.6 * n(rng));
            const Vec3<T> dir = normalize(Vec3<T>{T(n(rng)), T(n(rng)), T(n(rng))});
            const Vec3<T> v_colour{T(n(rng)), T(n(rng)), T(n(rng))};
            T v_coeffs[48] = {};
            ShGradSource<T> source, source_alone;
            const Vec3<T> v_dir = sh_to_colour_vjp(degree, coeffs, dir, v_colour, v_coeffs, &source);
            // Without the coefficients' gradient (the CUDA backward's sources path): the same source and
            // ∂/∂dir.
            const Vec3<T> v_dir_alone =
                sh_to_colour_vjp(degree, coeffs, dir, v_colour, static_cast<T*>(nullptr), &source_alone);
            for (int c = 0; c < 3; ++c) {
                EXPECT_EQ(std::memcmp(&v_dir[c], &v_dir_alone[c], sizeof(T)), 0);
                EXPECT_EQ(std::memcmp(&source.v_colour[c], &source_alone.v_colour[c], sizeof(T)), 0);
                EXPECT_EQ(std::memcmp(&source.dir[c], &source_alone.dir[c], sizeof(T)), 0);
            }
            bool clamped[3];
            sh_to_colour(degree, coeffs, dir, clamped);
            for (int c = 0; c < 3; ++c) {
                clamped_channels += clamped[c];
                EXPECT_EQ(source.v_colour[c], clamped[c] ? T(0) : v_colour[c]);
                EXPECT_EQ(source.dir[c], dir[c]);
            }
            T b[16];
            sh_basis(3, source.dir, b);
            const int active = sh_coeff_count(degree);
            for (int k = 0; k < 16; ++k)
                for (int c = 0; c < 3; ++c) {
                    const T got = sh_coeff_grad(b[k], source.v_colour[c], k < active);
                    EXPECT_EQ(std::memcmp(&got, &v_coeffs[3 * k + c], sizeof(T)), 0)
                        << "degree " << degree << " k " << k << " c " << c << ": " << got << " vs "
                        << v_coeffs[3 * k + c];
                }
        }
    EXPECT_GT(clamped_channels, 50);
}

TEST(Sh, GradientSourcesGiveTheVjpCoefficientGradients) {
    check_sources_give_the_vjp<float>(1);
    check_sources_give_the_vjp<double>(2);
}

}  // namespace
}  // namespace radiant
