// Issue 25: MCMC's relocation, growth and position noise over ranks give what one process gives — the same
// scene and moments in id order for 1, 2, 3 and 4 ranks — and the shares stay balanced with every Gaussian
// held once.
#include <gtest/gtest.h>

#include <cmath>
#include <mutex>

#include "radiant/core/error.hpp"
#include "radiant/distributed/communicator.hpp"
#include "radiant/distributed/densify_ranks.hpp"
#include "radiant/distributed/partition.hpp"
#include "support/random_scene.hpp"

namespace radiant::distributed {
namespace {

// A scene with dead Gaussians (opacity under the threshold) to relocate, and moments that are not zero, so
// that which moments are reset shows.
struct Start {
    Scene scene;
    AdamState adam;
    Start() {
        test::RandomSceneOptions o;
        o.count = 2000;
        o.sh_degree = 1;
        scene = test::random_scene(5, o);
        for (std::size_t i = 0; i < scene.size(); i += 7) scene.opacity_logits[i] = -8.f;  // ~0.0003: dead
        adam.reset_like(scene);
        for (Scene* m : {&adam.m, &adam.v})
            for (std::size_t i = 0; i < m->means.size(); ++i) m->means[i] = 1e-3f * float(i % 97 + 1);
    }
};

void set_moments(Share& share, const Start& s) {
    for (std::size_t i = 0; i < share.ids.size(); ++i)
        for (int c = 0; c < 3; ++c) {
            const std::size_t g = 3 * std::size_t(share.ids[i]) + std::size_t(c);
            share.adam.m.means[3 * i + std::size_t(c)] = s.adam.m.means[g];
            share.adam.v.means[3 * i + std::size_t(c)] = s.adam.v.means[g];
        }
}

TEST(McmcRanks, RelocationGrowthAndNoiseDecideAsOneProcess) {
    const Start start;
    McmcConfig config;
    config.max_gaussians = 2300;  // 5 % growth of 2000 is 100; a second round reaches the cap (2205 → 2300)
    // One process: two densifications with noise between them.
    Scene ref = start.scene;
    AdamState ref_adam = start.adam;
    DensifyStats ref_stats;
    ref_stats.reset(ref.size());
    std::size_t ref_relocated = 0;
    for (int round = 0; round < 2; ++round) {
        const DensifyPlan plan = plan_mcmc(ref, config, 100 + std::uint64_t(round));
        ref_relocated += plan.relocate_dead.size();
        apply_plan(plan, ref, ref_adam, ref_stats);
        add_position_noise(ref, 0.3, 200 + std::uint64_t(round));
    }
    ASSERT_GT(ref_relocated, 200u);
    ASSERT_EQ(ref.size(), 2205u);

    for (int ranks : {1, 2, 3, 4}) {
        Scene merged, merged_m;
        std::vector<std::size_t> sizes(static_cast<std::size_t>(ranks));
        std::size_t relocated = 0;
        std::mutex lock;
        run_in_process(ranks, [&](Communicator& comm) {
            Share share = initial_share(start.scene, comm.rank(), ranks);
            set_moments(share, start);
            DensifyStats stats;
            stats.reset(share.scene.size());
            std::size_t moved = 0;
            for (int round = 0; round < 2; ++round) {
                moved += densify_mcmc_ranks(comm, share, stats, config, 100 + std::uint64_t(round)).relocate;
                add_position_noise(share.scene, 0.3, 200 + std::uint64_t(round), &share.ids);
            }
            const Scene all = merge(comm, share);
            Share moments{share.adam.m, share.ids, {}};
            const Scene all_m = merge(comm, moments);
            const std::lock_guard<std::mutex> hold(lock);
            sizes[std::size_t(comm.rank())] = share.scene.size();
            EXPECT_EQ(stats.grad_accum.size(), share.scene.size());
            if (comm.rank() == 0) {
                merged = all;
                merged_m = all_m;
                relocated = moved;
            }
        });
        EXPECT_EQ(relocated, ref_relocated) << ranks << " ranks";
        EXPECT_EQ(merged.means, ref.means) << ranks << " ranks";
        EXPECT_EQ(merged.log_scales, ref.log_scales) << ranks << " ranks";
        EXPECT_EQ(merged.quats, ref.quats) << ranks << " ranks";
        EXPECT_EQ(merged.opacity_logits, ref.opacity_logits) << ranks << " ranks";
        EXPECT_EQ(merged.sh, ref.sh) << ranks << " ranks";
        EXPECT_EQ(merged_m.means, ref_adam.m.means) << ranks << " ranks";
        std::size_t total = 0;
        for (std::size_t s : sizes) {
            total += s;
            EXPECT_LE(s, ref.size() / std::size_t(ranks) + 1);
            EXPECT_GE(s, ref.size() / std::size_t(ranks));
        }
        EXPECT_EQ(total, ref.size());
    }
}

TEST(McmcRanks, IdsWithGapsAreRefused) {
    const Start start;
    EXPECT_THROW(run_in_process(2,
                                [&](Communicator& comm) {
                                    Share share = initial_share(start.scene, comm.rank(), 2);
                                    for (auto& id : share.ids)
                                        id *= 2;  // 0, 2, 4, …: not one process's order
                                    DensifyStats stats;
                                    stats.reset(share.scene.size());
                                    densify_mcmc_ranks(comm, share, stats, McmcConfig{}, 1);
                                }),
                 Error);
}

}  // namespace
}  // namespace radiant::distributed
