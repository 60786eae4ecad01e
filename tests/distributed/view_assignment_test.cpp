#include "radiant/distributed/view_assignment.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>

namespace radiant::distributed {
namespace {

std::vector<double> loads(const std::vector<double>& costs, const std::vector<int>& renderer, int ranks) {
    std::vector<double> l(static_cast<std::size_t>(ranks), 0.0);
    for (std::size_t v = 0; v < costs.size(); ++v) l[std::size_t(renderer[v])] += costs[v];
    return l;
}

double busiest(const std::vector<double>& costs, const std::vector<int>& renderer, int ranks) {
    const std::vector<double> l = loads(costs, renderer, ranks);
    return *std::max_element(l.begin(), l.end());
}

std::vector<int> round_robin(std::size_t views, int ranks) {
    std::vector<int> r(views);
    for (std::size_t v = 0; v < views; ++v) r[v] = int(v % std::size_t(ranks));
    return r;
}

TEST(ViewAssignment, ADearViewGetsARankToItself) {
    // One close-up as dear as ten distant views: round robin puts it beside five more.
    std::vector<double> costs(11, 1.0);
    costs[0] = 10.0;
    const std::vector<int> r = assign_views(costs, 2);
    EXPECT_EQ(busiest(costs, r, 2), 10.0);
    EXPECT_EQ(busiest(costs, round_robin(costs.size(), 2), 2), 15.0);
    for (std::size_t v = 1; v < costs.size(); ++v) EXPECT_NE(r[v], r[0]);
}

TEST(ViewAssignment, StaysNearTheBestOnRandomBatches) {
    std::mt19937 rng(7);
    std::lognormal_distribution<double> cost(0.0, 1.0);  // heavy-tailed, as pair counts are
    double lpt_sum = 0, round_robin_sum = 0;
    for (int trial = 0; trial < 200; ++trial) {
        const int ranks = 2 + trial % 7;
        std::vector<double> costs(std::size_t(ranks) * (1 + std::size_t(trial % 3)) + std::size_t(trial % 5));
        for (double& c : costs) c = cost(rng);
        const std::vector<int> r = assign_views(costs, ranks);
        ASSERT_EQ(r.size(), costs.size());
        for (int k : r) ASSERT_TRUE(k >= 0 && k < ranks);
        // No better than the lower bound, within one view of it (list scheduling), never worse than round
        // robin by more than rounding.
        const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
        const double dearest = *std::max_element(costs.begin(), costs.end());
        const double lower = std::max(total / ranks, dearest);
        const double b = busiest(costs, r, ranks);
        EXPECT_GE(b, lower - 1e-12);
        EXPECT_LE(b, total / ranks + dearest + 1e-12);
        lpt_sum += b;
        round_robin_sum += busiest(costs, round_robin(costs.size(), ranks), ranks);
        EXPECT_EQ(assign_views(costs, ranks), r) << "every rank must compute the same assignment";
    }
    std::printf("[view assignment] busiest rank over 200 batches: %.1f dealt by cost, %.1f round robin\n",
                lpt_sum, round_robin_sum);
    EXPECT_LT(lpt_sum, 0.9 * round_robin_sum);
}

TEST(ViewAssignment, UnmeasuredViewsCostTheMeanOfTheMeasured) {
    ViewCosts c(4);
    EXPECT_EQ(c.estimate(2), 1.0);
    c.observe(0, 100);
    c.observe(1, 300);
    EXPECT_EQ(c.estimate(2), 200.0);
    c.observe(1, 500);  // measured again: the new value replaces the old
    EXPECT_EQ(c.estimate(1), 500.0);
    EXPECT_EQ(c.estimate(3), 300.0);
}

}  // namespace
}  // namespace radiant::distributed
