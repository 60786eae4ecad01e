// Issue 22 item 1: the per-image appearance maths (core/appearance.hpp) — identity, the VJPs of both
// models against central differences in double (the grid's luminance path included), and the
// regulariser's gradient.
#include "radiant/core/appearance.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace radiant {
namespace {

std::vector<double> random_params(AppearanceModel m, double spread, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-spread, spread);
    std::vector<double> p(std::size_t(appearance_params(m)));
    for (std::size_t j = 0; j < p.size(); ++j) p[j] = appearance_identity(int(j)) + u(rng);
    return p;
}

TEST(Appearance, IdentityChangesNothing) {
    for (AppearanceModel m : {AppearanceModel::exposure, AppearanceModel::bilateral}) {
        const std::vector<double> p = random_params(m, 0.0, 1);
        const double rgb[3] = {0.2, 0.7, 0.45};
        for (auto [x, y] : {std::pair{0, 0}, std::pair{37, 5}, std::pair{63, 47}}) {
            double out[3];
            appearance_apply(m, p.data(), x, y, 64, 48, rgb, out);
            for (int c = 0; c < 3; ++c) EXPECT_NEAR(out[c], rgb[c], 1e-15) << int(m);
        }
    }
}

// Every pixel of a small image: the analytic VJP of Σ v·out against central differences, for the render
// and for every parameter.
void check_vjp(AppearanceModel m, std::uint32_t seed) {
    const int w = 23, h = 17;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.02, 0.98), v(-1, 1);
    std::vector<double> p = random_params(m, 0.3, seed);
    double worst_rgb = 0, worst_param = 0;
    const double eps = 1e-6;
    for (int y = 0; y < h; y += 3)
        for (int x = 0; x < w; x += 2) {
            double rgb[3] = {u(rng), u(rng), u(rng)}, v_out[3] = {v(rng), v(rng), v(rng)}, v_rgb[3];
            std::vector<double> g(p.size(), 0.0);
            appearance_vjp(m, p.data(), x, y, w, h, rgb, v_out, v_rgb,
                           [&](int j, double d) { g[std::size_t(j)] += d; });
            auto f = [&](const double* rgb_in) {
                double out[3];
                appearance_apply(m, p.data(), x, y, w, h, rgb_in, out);
                return v_out[0] * out[0] + v_out[1] * out[1] + v_out[2] * out[2];
            };
            for (int k = 0; k < 3; ++k) {
                double a[3] = {rgb[0], rgb[1], rgb[2]}, b[3] = {rgb[0], rgb[1], rgb[2]};
                a[k] += eps;
                b[k] -= eps;
                worst_rgb = std::max(worst_rgb, std::abs((f(a) - f(b)) / (2 * eps) - v_rgb[k]));
            }
            for (std::size_t j = 0; j < p.size(); ++j) {
                const double keep = p[j];
                p[j] = keep + eps;
                const double fa = f(rgb);
                p[j] = keep - eps;
                const double fb = f(rgb);
                p[j] = keep;
                worst_param = std::max(worst_param, std::abs((fa - fb) / (2 * eps) - g[j]));
            }
        }
    EXPECT_LT(worst_rgb, 1e-7) << int(m);
    EXPECT_LT(worst_param, 1e-7) << int(m);
}

TEST(Appearance, ExposureVjpMatchesCentralDifferences) {
    check_vjp(AppearanceModel::exposure, 3);
}

TEST(Appearance, BilateralVjpMatchesCentralDifferencesThroughTheLuminance) {
    check_vjp(AppearanceModel::bilateral, 4);
    check_vjp(AppearanceModel::bilateral, 5);
}

// The luminance path matters: a grid that varies along z makes the output depend on brightness beyond the
// affine part, and the VJP without that path would be wrong by far more than the tolerance above.
TEST(Appearance, BilateralGridVariesWithLuminance) {
    std::vector<double> p = random_params(AppearanceModel::bilateral, 0.0, 1);
    for (int z = 0; z < kGridZ; ++z)
        for (int y = 0; y < kGridY; ++y)
            for (int x = 0; x < kGridX; ++x) p[std::size_t(grid_corner_offset(x, y, z) + 3)] = 0.1 * z;
    const double dark[3] = {0.1, 0.1, 0.1}, bright[3] = {0.9, 0.9, 0.9};
    double a[3], b[3];
    appearance_apply(AppearanceModel::bilateral, p.data(), 5, 5, 32, 32, dark, a);
    appearance_apply(AppearanceModel::bilateral, p.data(), 5, 5, 32, 32, bright, b);
    EXPECT_NEAR(a[0] - dark[0], 0.1 * 0.1 * (kGridZ - 1), 1e-7);  // luminance weights are floats
    EXPECT_NEAR(b[0] - bright[0], 0.1 * 0.9 * (kGridZ - 1), 1e-7);
}

TEST(Appearance, RegulariserGradientMatchesCentralDifferences) {
    for (AppearanceModel m : {AppearanceModel::exposure, AppearanceModel::bilateral}) {
        std::vector<double> p = random_params(m, 0.2, 9);
        auto total = [&] {
            double s = 0, g;
            for (std::size_t j = 0; j < p.size(); ++j)
                s += appearance_reg_element(m, p.data(), int(j), 3.0, g);
            return s;
        };
        EXPECT_GT(total(), 0);
        double worst = 0;
        const double eps = 1e-6;
        for (std::size_t j = 0; j < p.size(); j += (m == AppearanceModel::bilateral ? 97 : 1)) {
            double g;
            appearance_reg_element(m, p.data(), int(j), 3.0, g);
            const double keep = p[j];
            p[j] = keep + eps;
            const double a = total();
            p[j] = keep - eps;
            const double b = total();
            p[j] = keep;
            worst = std::max(worst, std::abs((a - b) / (2 * eps) - g));
        }
        EXPECT_LT(worst, 1e-8) << int(m);
        const std::vector<double> id = random_params(m, 0.0, 1);
        double s = 0, g;
        for (std::size_t j = 0; j < id.size(); ++j) s += appearance_reg_element(m, id.data(), int(j), 3.0, g);
        EXPECT_EQ(s, 0.0) << "the identity is not penalised";
    }
}

}  // namespace
}  // namespace radiant
