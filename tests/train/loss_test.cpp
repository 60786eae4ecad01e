#include "radiant/train/loss.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "radiant/core/error.hpp"
#include "support/test_masks.hpp"

namespace radiant {
namespace {

Image<double> random_image(std::uint32_t seed, int w, int h, double lo = 0, double hi = 1) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(lo, hi);
    Image<double> img(w, h, 3);
    for (double& v : img.data) v = u(rng);
    return img;
}

// SSIM written directly from its definition (2D window sums, zero padding), not separable; with a mask,
// the map averaged over the pixels it keeps.
double naive_ssim(const Image<double>& a, const Image<double>& b, const Image<std::uint8_t>* mask = nullptr) {
    double g[11], gs = 0;
    for (int i = 0; i < 11; ++i) gs += g[i] = std::exp(-(i - 5) * (i - 5) / (2 * 1.5 * 1.5));
    for (double& v : g) v /= gs;
    double sum = 0;
    for (int c = 0; c < 3; ++c)
        for (int y = 0; y < a.height; ++y)
            for (int x = 0; x < a.width; ++x) {
                if (mask && mask->at(x, y) != kMaskValid) continue;
                double mx = 0, my = 0, xx = 0, yy = 0, xy = 0;
                for (int dy = -5; dy <= 5; ++dy)
                    for (int dx = -5; dx <= 5; ++dx) {
                        const int u = x + dx, v = y + dy;
                        if (u < 0 || v < 0 || u >= a.width || v >= a.height) continue;
                        const double w = g[dx + 5] * g[dy + 5], p = a.at(u, v, c), q = b.at(u, v, c);
                        mx += w * p, my += w * q, xx += w * p * p, yy += w * q * q, xy += w * p * q;
                    }
                const double vx = xx - mx * mx, vy = yy - my * my, cv = xy - mx * my;
                sum += (2 * mx * my + kSsimC1) * (2 * cv + kSsimC2) /
                       ((mx * mx + my * my + kSsimC1) * (vx + vy + kSsimC2));
            }
    std::size_t pixels = a.pixels();
    if (mask) pixels = std::size_t(std::count(mask->data.begin(), mask->data.end(), kMaskValid));
    return sum / (3.0 * double(pixels));
}

TEST(Loss, SsimMatchesTheDefinitionAndKnownPairs) {
    const Image<double> a = random_image(1, 23, 17), b = random_image(2, 23, 17);
    EXPECT_NEAR(ssim(a, b), naive_ssim(a, b), 1e-12);
    EXPECT_NEAR(ssim(a, a), 1.0, 1e-12);
    Image<double> dim = a;
    for (double& v : dim.data) v *= 0.5;
    EXPECT_NEAR(ssim(a, dim), naive_ssim(a, dim), 1e-12);
    EXPECT_LT(ssim(a, dim), 0.95);
}

TEST(Loss, PsnrOfKnownPairs) {
    Image<float> a(8, 8, 3, 0.5f), b(8, 8, 3, 0.6f);
    EXPECT_NEAR(psnr(a, b), 20.0, 1e-4);  // MSE 0.01
    Image<float> c(8, 8, 3, 0.5f);
    c.data[0] = 0.5f + 0.8f;  // MSE 0.64 / 192
    EXPECT_NEAR(psnr(a, c), 10 * std::log10(192 / 0.64), 1e-3);
}

TEST(Loss, GradientMatchesCentralDifferences) {
    const Image<double> target = random_image(3, 19, 13);
    Image<double> render = random_image(4, 19, 13);
    for (double lambda : {0.0, 0.2, 1.0}) {
        Image<double> grad;
        photometric_loss(render, target, lambda, &grad);
        std::mt19937 rng(5);
        double num = 0, den = 0;
        for (int k = 0; k < 60; ++k) {
            const std::size_t i = rng() % render.data.size();
            const double h = 1e-6, keep = render.data[i];
            render.data[i] = keep + h;
            const double lp = photometric_loss<double>(render, target, lambda, nullptr).total;
            render.data[i] = keep - h;
            const double lm = photometric_loss<double>(render, target, lambda, nullptr).total;
            render.data[i] = keep;
            const double fd = (lp - lm) / (2 * h);
            num += (grad.data[i] - fd) * (grad.data[i] - fd);
            den += fd * fd;
        }
        EXPECT_LT(std::sqrt(num / den), 1e-6) << "lambda " << lambda;
    }
}

TEST(Loss, CombinesL1AndSsimWithLambda) {
    const Image<double> a = random_image(6, 16, 16), b = random_image(7, 16, 16);
    const LossValue v = photometric_loss<double>(a, b, 0.2, nullptr);
    double l1 = 0;
    for (std::size_t i = 0; i < a.data.size(); ++i) l1 += std::abs(a.data[i] - b.data[i]);
    l1 /= double(a.data.size());
    EXPECT_NEAR(v.l1, l1, 1e-12);
    EXPECT_NEAR(v.total, 0.8 * l1 + 0.2 * (1 - ssim(a, b)), 1e-12);
}

// Issue 18: pixels a mask excludes neither train nor score.
TEST(Loss, MaskedPixelsGetExactlyZeroGradientAndNoScore) {
    const int w = 23, h = 19;
    const Image<double> target = random_image(11, w, h);
    Image<double> render = random_image(12, w, h);
    const Image<std::uint8_t> mask = test::disc_and_border_mask(w, h);
    std::size_t valid = 0;
    for (std::uint8_t m : mask.data) valid += m == kMaskValid;
    ASSERT_GT(valid, std::size_t(w * h / 2));
    ASSERT_LT(valid, std::size_t(w * h));
    for (double lambda : {0.0, 0.2, 1.0}) {
        Image<double> grad;
        const LossValue v = photometric_loss(render, target, lambda, &grad, &mask);
        for (std::size_t p = 0; p < mask.data.size(); ++p) {
            if (mask.data[p] == kMaskValid) continue;
            for (int c = 0; c < 3; ++c) ASSERT_EQ(grad.data[3 * p + std::size_t(c)], 0.0) << p;
        }
        // Whatever the render draws at excluded pixels changes nothing.
        Image<double> other = render;
        for (std::size_t p = 0; p < mask.data.size(); ++p)
            if (mask.data[p] != kMaskValid)
                for (int c = 0; c < 3; ++c)
                    other.data[3 * p + std::size_t(c)] = 1 - other.data[3 * p + std::size_t(c)];
        const LossValue o = photometric_loss<double>(other, target, lambda, nullptr, &mask);
        EXPECT_EQ(o.total, v.total);
        // L1 is the mean over counted values.
        double l1 = 0;
        for (std::size_t i = 0; i < render.data.size(); ++i)
            if (mask.data[i / 3] == kMaskValid) l1 += std::abs(render.data[i] - target.data[i]);
        EXPECT_NEAR(v.l1, l1 / (3.0 * double(valid)), 1e-12);
        // The gradient at counted pixels is the masked loss's, by central differences.
        std::mt19937 rng(13);
        double num = 0, den = 0;
        for (int k = 0; k < 80; ++k) {
            const std::size_t i = rng() % render.data.size();
            if (mask.data[i / 3] != kMaskValid) continue;
            const double step = 1e-6, keep = render.data[i];
            render.data[i] = keep + step;
            const double lp = photometric_loss<double>(render, target, lambda, nullptr, &mask).total;
            render.data[i] = keep - step;
            const double lm = photometric_loss<double>(render, target, lambda, nullptr, &mask).total;
            render.data[i] = keep;
            const double fd = (lp - lm) / (2 * step);
            num += (grad.data[i] - fd) * (grad.data[i] - fd);
            den += fd * fd;
        }
        EXPECT_LT(std::sqrt(num / den), 1e-6) << "lambda " << lambda;
    }
    // SSIM: the definition's map on the render with excluded pixels set to the target, averaged over the
    // counted pixels.
    Image<double> composite = render;
    for (std::size_t p = 0; p < mask.data.size(); ++p)
        if (mask.data[p] != kMaskValid)
            for (int c = 0; c < 3; ++c)
                composite.data[3 * p + std::size_t(c)] = target.data[3 * p + std::size_t(c)];
    EXPECT_NEAR(ssim(render, target, &mask), naive_ssim(composite, target, &mask), 1e-12);
    // PSNR over counted pixels only.
    Image<float> rf(w, h, 3), tf(w, h, 3);
    for (std::size_t i = 0; i < rf.data.size(); ++i) {
        tf.data[i] = float(target.data[i]);
        rf.data[i] = mask.data[i / 3] == kMaskValid ? float(target.data[i]) + 0.1f : 0.f;
    }
    EXPECT_NEAR(psnr(rf, tf, &mask), 20.0, 1e-3);
    EXPECT_LT(psnr(rf, tf), 19.0);
    // An all-valid mask is no mask; a mask that excludes everything is an error.
    const Image<std::uint8_t> full(w, h, 1, kMaskValid), none(w, h, 1, kMaskInvalid);
    EXPECT_EQ(photometric_loss<double>(render, target, 0.2, nullptr, &full).total,
              photometric_loss<double>(render, target, 0.2, nullptr).total);
    EXPECT_THROW(photometric_loss<double>(render, target, 0.2, nullptr, &none), Error);
    const Image<std::uint8_t> wrong(w + 1, h, 1, kMaskValid);
    EXPECT_THROW(photometric_loss<double>(render, target, 0.2, nullptr, &wrong), Error);
}

}  // namespace
}  // namespace radiant
