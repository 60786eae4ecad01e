#include "radiant/train/divergence.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace radiant {
namespace {

// Feeds `loss(step)` for steps 1..steps; returns the first step the watch flags, or 0.
template <class F>
long first_flag(DivergenceWatch& w, long steps, F loss) {
    for (long s = 1; s <= steps; ++s)
        if (!w.add(s, loss(s)).empty()) return s;
    return 0;
}

TEST(Divergence, ANonFiniteLossStopsAtOnce) {
    DivergenceWatch w;
    EXPECT_EQ(w.add(1, 0.3), "");
    EXPECT_NE(w.add(2, NAN).find("the loss is nan at step 2"), std::string::npos);
    DivergenceWatch off(DivergenceRule{50, 2, 0});  // patience 0 still stops on NaN
    EXPECT_NE(off.add(1, INFINITY), "");
}

TEST(Divergence, AnOpacityResetAndNoisyViewsAreHealthy) {
    DivergenceWatch w;
    // Falling loss with a ±50% alternating view difficulty, an opacity reset at 3000 that multiplies the
    // loss by 6 and recovers over 300 steps.
    auto loss = [](long s) {
        double l = 0.3 * std::exp(-double(s) / 800) + 0.03;
        if (s >= 3000 && s < 3300) l *= 1 + 5 * (1 - double(s - 3000) / 300);
        return l * (s % 2 ? 1.5 : 0.5);
    };
    EXPECT_EQ(first_flag(w, 10000, loss), 0);
}

TEST(Divergence, ALossThatStaysHighStopsAfterThePatience) {
    DivergenceWatch w;
    // Healthy for 1000 steps, then exploding colours: the loss goes to 5 and stays.
    auto loss = [](long s) { return s < 1000 ? 0.2 : 5.0; };
    const long at = first_flag(w, 5000, loss);
    EXPECT_GT(at, 1500);  // not before the patience has passed
    EXPECT_LT(at, 1600);
    DivergenceWatch again;
    std::string why;
    for (long s = 1; s <= at && why.empty(); ++s) why = again.add(s, loss(s));
    EXPECT_NE(why.find("stayed above 2x its level over the first 50 steps (0.2)"), std::string::npos) << why;
}

TEST(Divergence, ASpikeShorterThanThePatienceIsForgiven) {
    DivergenceWatch w;
    auto loss = [](long s) { return s >= 1000 && s < 1300 ? 5.0 : 0.2; };
    EXPECT_EQ(first_flag(w, 3000, loss), 0);
}

}  // namespace
}  // namespace radiant
