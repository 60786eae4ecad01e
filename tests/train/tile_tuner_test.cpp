#include "radiant/train/tile_tuner.hpp"

#include <gtest/gtest.h>

#include <map>

namespace radiant {
namespace {

// Runs `steps` steps at one image size, each taking ms_for[tile size] milliseconds; returns the sizes used.
std::vector<int> run(TileTuner& t, int steps, std::map<int, double> ms_for, int width = 800, int height = 532,
                     bool small_fits = true) {
    std::vector<int> used;
    for (int i = 0; i < steps; ++i) {
        const int tile = t.choose(width, height, small_fits);
        used.push_back(tile);
        t.record(1e-3 * ms_for.at(tile));
    }
    return used;
}

TEST(TileTuner, KeepsTheGivenSizeUntilTheFirstWindow) {
    TileTuner t(16, 10, 4);
    const std::vector<int> used = run(t, 9, {{8, 1.0}, {16, 2.0}});
    EXPECT_EQ(used, std::vector<int>(9, 16));
    EXPECT_EQ(t.summary(), "");
}

TEST(TileTuner, TimesBothSizesInTurnAndTrainsWithTheFaster) {
    TileTuner t(16, 10, 4);
    const std::vector<int> used = run(t, 9 + 8 + 5, {{8, 2.5}, {16, 3.0}});
    // The window alternates 8, 16, 16, 8 so that a drift in step cost weighs on both alike.
    const std::vector<int> window(used.begin() + 9, used.begin() + 17);
    EXPECT_EQ(window, (std::vector<int>{8, 16, 16, 8, 8, 16, 16, 8}));
    for (std::size_t i = 17; i < used.size(); ++i) EXPECT_EQ(used[i], 8) << "step " << i;
    EXPECT_EQ(t.summary(), "8-pixel tiles at 800x532 (2.50 ms a step against 3.00 ms)");
}

TEST(TileTuner, ChoosesAgainAsTheSceneChanges) {
    TileTuner t(16, 10, 4);
    run(t, 30, {{8, 2.0}, {16, 3.0}});  // window at steps 10–17: 8 wins; next window at step 34
    const std::vector<int> later = run(t, 20, {{8, 5.0}, {16, 3.0}});  // the splats grew: 16 wins now
    EXPECT_EQ(later.back(), 16);
    EXPECT_EQ(t.summary(), "16-pixel tiles at 800x532 (3.00 ms a step against 5.00 ms)");
}

TEST(TileTuner, OneSlowStepDoesNotDecide) {
    TileTuner t(16, 1, 4);
    int k = 0;
    for (int i = 0; i < 8; ++i) {
        const int tile = t.choose(64, 64);
        // The first 8-pixel step grows the backend's buffers: ten times slower than the rest.
        t.record(tile == 8 ? (k++ == 0 ? 30e-3 : 2e-3) : 3e-3);
    }
    EXPECT_EQ(t.choose(64, 64), 8);
}

TEST(TileTuner, EachImageSizeIsTimedOnItsOwn) {
    TileTuner t(16, 2, 2);
    for (int i = 0; i < 12; ++i) {
        const bool big = i % 2 == 0;
        const int tile = t.choose(big ? 1920 : 320, big ? 1080 : 240);
        // Large images favour 16-pixel tiles here, small ones 8.
        t.record(1e-3 * (big ? (tile == 16 ? 5.0 : 7.0) : (tile == 8 ? 1.0 : 1.5)));
    }
    EXPECT_EQ(t.choose(1920, 1080), 16);
    EXPECT_EQ(t.choose(320, 240), 8);
}

TEST(TileTuner, SmallTilesThatDoNotFitAreNotTried) {
    TileTuner t(16, 4, 2);
    const std::vector<int> used = run(t, 40, {{8, 1.0}, {16, 2.0}}, 800, 532, false);
    EXPECT_EQ(used, std::vector<int>(40, 16));
    EXPECT_EQ(t.summary(), "");
    // Once memory is free again, the next window (put off to step 2 × 4, 2 × 8, ...) tries them.
    const std::vector<int> later = run(t, 40, {{8, 1.0}, {16, 2.0}});
    EXPECT_EQ(later.back(), 8);
}

}  // namespace
}  // namespace radiant
