#include "radiant/core/kdtree.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace radiant {
namespace {

TEST(KdTree, NearestNeighboursMatchBruteForce) {
    std::mt19937 rng(4);
    std::normal_distribution<float> n(0, 1);
    std::vector<Vec3<float>> pts(3000);
    for (auto& p : pts) p = {n(rng), 0.3f * n(rng), 2.0f * n(rng)};
    pts[10] = pts[11];  // duplicates
    const KdTree tree(pts);
    const std::vector<float> mean3 = mean_sq_dist_3nn(pts);
    for (std::size_t i = 0; i < pts.size(); i += 7) {
        std::vector<float> d;
        for (std::size_t j = 0; j < pts.size(); ++j)
            if (j != i) d.push_back(dot(pts[j] - pts[i], pts[j] - pts[i]));
        std::sort(d.begin(), d.end());
        const auto got = tree.nearest_sq(i, 3);
        ASSERT_EQ(got.size(), 3u);
        for (int k = 0; k < 3; ++k) EXPECT_FLOAT_EQ(got[std::size_t(k)], d[std::size_t(k)]);
        EXPECT_NEAR(mean3[i], (d[0] + d[1] + d[2]) / 3, 1e-6f * (1 + d[2]));
    }
    EXPECT_EQ(tree.nearest_sq(10, 1)[0], 0.0f);
}

TEST(KdTree, FewerPointsThanNeighbours) {
    const auto d = mean_sq_dist_3nn({{0, 0, 0}, {3, 4, 0}});
    EXPECT_FLOAT_EQ(d[0], 25.0f);
    EXPECT_FLOAT_EQ(mean_sq_dist_3nn({{1, 1, 1}})[0], 0.0f);
}

}  // namespace
}  // namespace radiant
