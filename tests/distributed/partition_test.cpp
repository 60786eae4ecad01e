#include "radiant/distributed/partition.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>

#include "radiant/core/error.hpp"
#include "support/random_scene.hpp"

namespace radiant::distributed {
namespace {

Scene rows(const Scene& s, std::size_t from, std::size_t to) {
    Scene r;
    r.sh_degree = s.sh_degree;
    const std::size_t k = 3 * std::size_t(s.sh_coeffs());
    auto cut = [&](const std::vector<float>& a, std::size_t w) {
        return std::vector<float>(a.begin() + std::ptrdiff_t(from * w), a.begin() + std::ptrdiff_t(to * w));
    };
    r.means = cut(s.means, 3);
    r.log_scales = cut(s.log_scales, 3);
    r.quats = cut(s.quats, 4);
    r.opacity_logits = cut(s.opacity_logits, 1);
    r.sh = cut(s.sh, k);
    return r;
}

void expect_same(const Scene& a, const Scene& b) {
    EXPECT_EQ(a.means, b.means);
    EXPECT_EQ(a.log_scales, b.log_scales);
    EXPECT_EQ(a.quats, b.quats);
    EXPECT_EQ(a.opacity_logits, b.opacity_logits);
    EXPECT_EQ(a.sh, b.sh);
}

TEST(Partition, InitialSharesHoldEveryGaussianOnceInMortonRuns) {
    test::RandomSceneOptions o;
    o.count = 1001;
    o.sh_degree = 1;
    const Scene scene = test::random_scene(3, o);
    Vec3<double> lo{1e30, 1e30, 1e30}, hi{-1e30, -1e30, -1e30};
    for (std::size_t i = 0; i < scene.size(); ++i) {
        const Vec3<float> m = scene.mean(i);
        lo = {std::min(lo.x, double(m.x)), std::min(lo.y, double(m.y)), std::min(lo.z, double(m.z))};
        hi = {std::max(hi.x, double(m.x)), std::max(hi.y, double(m.y)), std::max(hi.z, double(m.z))};
    }
    const std::vector<std::uint64_t> keys = morton_keys(scene, lo, hi);
    for (int ranks : {1, 2, 3, 4, 5}) {
        std::vector<int> held(scene.size(), 0);
        std::uint64_t previous_max = 0;
        for (int r = 0; r < ranks; ++r) {
            const Share s = initial_share(scene, r, ranks);
            EXPECT_EQ(s.ids.size(),
                      run_start(scene.size(), r + 1, ranks) - run_start(scene.size(), r, ranks));
            EXPECT_TRUE(std::is_sorted(s.ids.begin(), s.ids.end()));
            EXPECT_EQ(s.adam.m.size(), s.scene.size());
            std::uint64_t first = ~0ULL, last = 0;
            for (std::size_t i = 0; i < s.ids.size(); ++i) {
                ++held[s.ids[i]];
                EXPECT_EQ(s.scene.mean(i).x, scene.mean(s.ids[i]).x);
                first = std::min(first, keys[s.ids[i]]);
                last = std::max(last, keys[s.ids[i]]);
            }
            // Contiguous runs of the Morton order in the scene's own box: near Gaussians on one rank.
            if (r > 0 && !s.ids.empty()) {
                EXPECT_GE(first, previous_max) << ranks << " ranks, rank " << r;
            }
            previous_max = last;
        }
        for (std::size_t g = 0; g < scene.size(); ++g) ASSERT_EQ(held[g], 1) << "Gaussian " << g;
    }
}

TEST(Partition, RebalanceMovesGaussiansWithTheirMomentsAndLosesNone) {
    test::RandomSceneOptions o;
    o.count = 650;
    o.sh_degree = 2;
    const Scene scene = test::random_scene(4, o);
    // Moments that tell the Gaussians apart: m = 2 × the parameters, v = 3 ×.
    auto scaled = [](Scene s, float f) {
        for (auto* a : {&s.means, &s.log_scales, &s.quats, &s.opacity_logits, &s.sh})
            for (float& v : *a) v *= f;
        return s;
    };
    // After densification: rank 0 holds 600, rank 1 50, rank 2 none.
    const std::size_t cuts[] = {0, 600, 650, 650};
    std::vector<Share> after(3);
    std::mutex m;
    run_in_process(3, [&](Communicator& c) {
        const std::size_t r = std::size_t(c.rank());
        Share s;
        s.scene = rows(scene, cuts[r], cuts[r + 1]);
        s.adam.m = scaled(s.scene, 2);
        s.adam.v = scaled(s.scene, 3);
        s.adam.step = 17;
        for (std::size_t g = cuts[r]; g < cuts[r + 1]; ++g) s.ids.push_back(g);
        rebalance(c, s);
        std::vector<std::uint64_t> ids;
        const Scene merged = merge(c, s, &ids);
        std::lock_guard lock(m);
        expect_same(merged, scene);
        for (std::size_t g = 0; g < ids.size(); ++g) EXPECT_EQ(ids[g], g);
        after[r] = std::move(s);
    });
    std::size_t total = 0;
    for (const Share& s : after) {
        EXPECT_TRUE(s.scene.size() == 216 || s.scene.size() == 217) << s.scene.size();
        EXPECT_EQ(s.adam.step, 17);
        for (std::size_t i = 0; i < s.ids.size(); ++i) {
            const Scene own = rows(scene, s.ids[i], s.ids[i] + 1);
            expect_same(rows(s.scene, i, i + 1), own);
            expect_same(rows(s.adam.m, i, i + 1), scaled(own, 2));
            expect_same(rows(s.adam.v, i, i + 1), scaled(own, 3));
        }
        total += s.scene.size();
    }
    EXPECT_EQ(total, scene.size());
}

TEST(Partition, AGaussianHeldByTwoRanksIsAnError) {
    test::RandomSceneOptions o;
    o.count = 10;
    const Scene scene = test::random_scene(5, o);
    EXPECT_THROW(run_in_process(2,
                                [&](Communicator& c) {
                                    Share s = initial_share(scene, 0, 1);  // both ranks hold everything
                                    rebalance(c, s);
                                }),
                 Error);
}

}  // namespace
}  // namespace radiant::distributed
