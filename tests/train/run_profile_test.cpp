#include "radiant/train/run_profile.hpp"

#include <gtest/gtest.h>

namespace radiant {
namespace {

StepTimings timings() {
    StepTimings t;
    t.project = 0.2;
    t.bin = 0.1;
    t.sort = 0.1;
    t.forward = 0.5;
    t.loss = 0.1;
    t.backward = 1.0;
    t.geometry = 0.3;
    t.adam = 0.4;
    t.step = t.project + t.bin + t.sort + t.forward + t.loss + t.backward + t.geometry + t.adam;
    return t;
}

TEST(RunProfile, StagesAreMeansOverTheTimedSteps) {
    RunProfile p(10);
    p.add_step(timings());
    StepTimings slower = timings();
    slower.backward = 2.0;
    slower.step += 1.0;
    p.add_step(slower);
    const std::vector<StageShare> s = p.step_stages();
    ASSERT_EQ(s.size(), 8u);
    EXPECT_EQ(s[5].stage, "backward");
    EXPECT_DOUBLE_EQ(s[5].ms, 1.5);
    EXPECT_EQ(s[6].stage, "geometry");
    EXPECT_EQ(s[7].stage, "adam");
    EXPECT_DOUBLE_EQ(p.step_ms(), timings().step + 0.5);
}

}  // namespace
}  // namespace radiant
