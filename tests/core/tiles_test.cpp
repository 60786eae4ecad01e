#include "radiant/core/tiles.hpp"

#include <gtest/gtest.h>

#include <random>

#include "radiant/core/ewa.hpp"

namespace radiant {
namespace {

Sym2<double> random_conic(std::mt19937& rng) {
    std::uniform_real_distribution<double> u(0, 1);
    double sa = 1 + 40 * u(rng), sb = 1 + 40 * u(rng), th = 6.3 * u(rng);
    double c = std::cos(th), s = std::sin(th);
    Sym2<double> cov{c * c * sa * sa + s * s * sb * sb, c * s * (sa * sa - sb * sb),
                     s * s * sa * sa + c * c * sb * sb};
    Sym2<double> conic;
    inverse(cov, conic);
    return conic;
}

TEST(Tiles, MinimumOverRectangleMatchesDenseSampling) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-60, 60);
    for (int t = 0; t < 200; ++t) {
        Sym2<double> q = random_conic(rng);
        Vec2<double> mean{u(rng), u(rng)};
        double x0 = -8, x1 = 8, y0 = -5, y1 = 11;
        double got = min_quadratic_over_rect(q, mean, x0, x1, y0, y1);
        double best = INFINITY;
        for (int i = 0; i <= 400; ++i)
            for (int j = 0; j <= 400; ++j) {
                double dx = x0 + (x1 - x0) * i / 400 - mean.x, dy = y0 + (y1 - y0) * j / 400 - mean.y;
                best = std::min(best, q.a * dx * dx + 2 * q.b * dx * dy + q.c * dy * dy);
            }
        EXPECT_LE(got, best + 1e-12);
        EXPECT_NEAR(got, best, 1e-3 * (1 + best));
    }
}

// Every pixel centre inside the ellipse lies in a tile that the test keeps, and the bounds hold it.
TEST(Tiles, TileTestNeverMissesACoveredPixel) {
    std::mt19937 rng(9);
    std::uniform_real_distribution<double> u(-20, 120);
    const int w = 101, h = 77, ts = 16, tiles_x = (w + ts - 1) / ts;
    int kept_tiles = 0, covered_tiles = 0;
    for (int t = 0; t < 300; ++t) {
        Sym2<double> conic = random_conic(rng), cov;
        inverse(conic, cov);
        Vec2<double> mean{u(rng), u(rng)};
        double k2 = 9.0;
        TileRect r = footprint_tile_bounds(mean, cov, k2, w, h, ts);
        std::vector<char> covered(std::size_t(tiles_x * ((h + ts - 1) / ts)), 0);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                double dx = x + 0.5 - mean.x, dy = y + 0.5 - mean.y;
                if (conic.a * dx * dx + 2 * conic.b * dx * dy + conic.c * dy * dy > k2) continue;
                int tx = x / ts, ty = y / ts;
                covered[std::size_t(ty * tiles_x + tx)] = 1;
                ASSERT_TRUE(tx >= r.x0 && tx < r.x1 && ty >= r.y0 && ty < r.y1) << "pixel outside bounds";
                ASSERT_TRUE(footprint_touches_tile(mean, conic, k2, tx, ty, ts, w, h))
                    << "covered tile missed";
            }
        for (int ty = r.y0; ty < r.y1; ++ty)
            for (int tx = r.x0; tx < r.x1; ++tx) {
                kept_tiles += footprint_touches_tile(mean, conic, k2, tx, ty, ts, w, h);
                covered_tiles += covered[std::size_t(ty * tiles_x + tx)];
            }
    }
    // Exact, not a box: almost every kept tile really has a covered pixel centre.
    EXPECT_GE(covered_tiles, int(0.97 * kept_tiles));
}

}  // namespace
}  // namespace radiant
