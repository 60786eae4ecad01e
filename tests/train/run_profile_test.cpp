#include "radiant/train/run_profile.hpp"

#include <gtest/gtest.h>

namespace radiant {
namespace {

StepTimings timings(bool fused) {
    StepTimings t;
    t.project = 0.2;
    t.bin = 0.1;
    t.sort = 0.1;
    t.forward = 0.5;
    t.loss = 0.1;
    t.backward = 1.0;
    t.geometry = fused ? 0.0 : 0.3;
    t.adam = fused ? 0.5 : 0.4;
    t.step = t.project + t.bin + t.sort + t.forward + t.loss + t.backward + t.geometry + t.adam;
    t.geometry_in_adam = fused;
    return t;
}

TEST(RunProfile, StagesAreMeansOverTheTimedSteps) {
    RunProfile p(10);
    p.add_step(timings(false));
    StepTimings slower = timings(false);
    slower.backward = 2.0;
    slower.step += 1.0;
    p.add_step(slower);
    const std::vector<StageShare> s = p.step_stages();
    ASSERT_EQ(s.size(), 8u);
    EXPECT_EQ(s[5].stage, "backward");
    EXPECT_DOUBLE_EQ(s[5].ms, 1.5);
    EXPECT_EQ(s[6].stage, "geometry");
    EXPECT_EQ(s[7].stage, "adam");
    EXPECT_DOUBLE_EQ(p.step_ms(), timings(false).step + 0.5);
}

// The fused geometry backward + Adam kernel is one stage: named for both, not "adam" holding the geometry's
// time while "geometry" is missing.
TEST(RunProfile, AFusedGeometryAdamStageIsNamedForBoth) {
    RunProfile p(10);
    p.add_step(timings(true));
    const std::vector<StageShare> s = p.step_stages();
    ASSERT_EQ(s.size(), 7u);
    EXPECT_EQ(s.back().stage, "geometry+adam");
    EXPECT_DOUBLE_EQ(s.back().ms, 0.5);
    EXPECT_NE(p.json().find("\"geometry+adam\""), std::string::npos);
}

}  // namespace
}  // namespace radiant
