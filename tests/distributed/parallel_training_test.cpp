#include "radiant/distributed/parallel_training.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "distributed/fixture.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/ply.hpp"
#include "radiant/train/checkpoint.hpp"
#include "support/temp_dir.hpp"

namespace radiant::distributed {
namespace {

ParallelTrainResult train_on(int ranks, const test_data::Fixture& f, const ParallelTrainConfig& c) {
    std::vector<BatchView> views;
    for (std::size_t v = 0; v < f.cameras.size(); ++v) views.push_back({&f.cameras[v], &f.targets[v], v});
    ParallelTrainResult out;
    run_in_process(ranks, [&](Communicator& comm) {
        ParallelTrainResult r = train_gaussian_parallel(comm, f.start, views, c);
        if (comm.rank() == 0) out = std::move(r);
    });
    return out;
}

TEST(ParallelTraining, OneMergedSceneWhateverTheRanks) {
    const test_data::Fixture f(8);
    test::TempDir dir;
    const ParallelTrainResult one = train_on(1, f, test_data::short_run((dir / "r1").string()));
    // Each step's scene size as every rank reports it (after the step's densification).
    std::mutex reporting;
    std::map<long, std::set<std::size_t>> reported;
    ParallelTrainConfig c3 = test_data::short_run((dir / "r3").string());
    c3.on_step = [&](long step, double, std::size_t gaussians) {
        const std::lock_guard<std::mutex> lock(reporting);
        reported[step].insert(gaussians);
    };
    const ParallelTrainResult three = train_on(3, f, c3);
    std::printf("[parallel training] %zu → %zu Gaussians, loss %.4f → %.4f; shares at the end:",
                f.start.size(), three.scene.size(), three.losses.front(), three.losses.back());
    for (std::size_t s : three.share_sizes) std::printf(" %zu", s);
    std::printf("\n");
    EXPECT_GT(three.scene.size(), f.start.size());  // densified
    // Learning before the opacity reset at step 20, the reset's jump, and the recovery after it.
    ASSERT_EQ(three.losses.size(), 40u);
    EXPECT_LT(three.losses[18], three.losses[0]);
    EXPECT_GT(three.losses[20], 1.5 * three.losses[19]);
    EXPECT_LT(three.losses.back(), three.losses[20]);
    EXPECT_EQ(three.losses, one.losses);
    // The same scene, written whole once: the two runs' files are the same bytes.
    EXPECT_EQ(read_file((dir / "r3" / "scene.ply").string()), read_file((dir / "r1" / "scene.ply").string()));
    const Scene written = read_ply((dir / "r3" / "scene.ply").string());
    EXPECT_EQ(written.means, three.scene.means);
    EXPECT_EQ(written.size(), three.scene.size());
    // Rebalanced after each densification: the shares differ by one Gaussian at most.
    ASSERT_EQ(three.share_sizes.size(), 3u);
    const auto [lo, hi] = std::minmax_element(three.share_sizes.begin(), three.share_sizes.end());
    EXPECT_LE(*hi - *lo, 1u);
    // The sizes reported: the same on every rank, the densified size from the round's step on (ADC at steps
    // 10 and 20), the final scene's at the end.
    ASSERT_EQ(reported.size(), 40u);
    for (const auto& [step, sizes] : reported) EXPECT_EQ(sizes.size(), 1u) << "step " << step;
    EXPECT_EQ(*reported[1].begin(), f.start.size());
    EXPECT_NE(*reported[10].begin(), *reported[9].begin());
    EXPECT_EQ(*reported[11].begin(), *reported[10].begin());
    EXPECT_EQ(*reported[40].begin(), three.scene.size());
}

// MCMC over ranks (relocation, growth, id-keyed noise and the regularisers over the whole scene): 2 and 4
// ranks write the bytes one rank writes, the budget holds, and the shares stay balanced.
TEST(ParallelTraining, McmcOverRanksIsOneProcesssRun) {
    const test_data::Fixture f(8);
    test::TempDir dir;
    auto mcmc_run = [&](const std::string& name) {
        ParallelTrainConfig c = test_data::short_run((dir / name).string());
        c.strategy = "mcmc";
        c.mcmc.start = 5;
        c.mcmc.interval = 10;
        c.mcmc.stop = 35;
        c.mcmc.max_gaussians = 3200;
        c.mcmc.min_opacity = 0.05;  // the fixture's scene has some this faint: relocation happens
        c.mcmc.noise_lr = 5e3;
        return c;
    };
    const ParallelTrainResult one = train_on(1, f, mcmc_run("m1"));
    const ParallelTrainResult two = train_on(2, f, mcmc_run("m2"));
    const ParallelTrainResult four = train_on(4, f, mcmc_run("m4"));
    std::printf("[parallel mcmc] %zu → %zu Gaussians, loss %.4f → %.4f\n", f.start.size(), four.scene.size(),
                four.losses.front(), four.losses.back());
    EXPECT_EQ(one.scene.size(), 3200u);  // grown by 5 % a round up to the budget
    EXPECT_LT(one.losses.back(), one.losses.front());
    EXPECT_EQ(two.losses, one.losses);
    EXPECT_EQ(four.losses, one.losses);
    const std::string bytes = read_file((dir / "m1" / "scene.ply").string());
    EXPECT_EQ(read_file((dir / "m2" / "scene.ply").string()), bytes);
    EXPECT_EQ(read_file((dir / "m4" / "scene.ply").string()), bytes);
    const auto [lo, hi] = std::minmax_element(four.share_sizes.begin(), four.share_sizes.end());
    EXPECT_LE(*hi - *lo, 1u);
    // Without the regularisers the run differs: they are applied, over the whole scene.
    ParallelTrainConfig plain = mcmc_run("m0");
    plain.mcmc.opacity_reg = plain.mcmc.scale_reg = 0;
    EXPECT_NE(train_on(1, f, plain).losses.back(), one.losses.back());
}

TEST(ParallelTraining, EachCheckpointWritesTheMergedScene) {
    const test_data::Fixture f(8);
    test::TempDir dir;
    ParallelTrainConfig c = test_data::short_run((dir / "run").string());
    std::vector<long> steps;
    c.after_checkpoint = [&](long step, const Scene& merged) {
        steps.push_back(step);
        // What is on disk now is the whole scene of this step, not one rank's share.
        const Scene on_disk = read_ply((dir / "run" / "scene.ply").string());
        EXPECT_EQ(on_disk.size(), merged.size()) << "step " << step;
        EXPECT_EQ(on_disk.means, merged.means) << "step " << step;
    };
    train_on(4, f, c);
    EXPECT_EQ(steps, (std::vector<long>{15, 30}));
}

// A run stopped between two densification rounds (its statistics half gathered, its view order half walked)
// and continued from the state it saved, on another number of ranks, ends as the run that never stopped:
// the same losses and the same scene.ply bytes, for ADC and for MCMC (relocation, growth and the id-keyed
// noise after the stop). The saved state survives checkpoint.bin's format.
TEST(ParallelTraining, AStoppedRunContinuesAsIfItNeverStopped) {
    const test_data::Fixture f(8);
    std::vector<BatchView> views;
    for (std::size_t v = 0; v < f.cameras.size(); ++v) views.push_back({&f.cameras[v], &f.targets[v], v});
    for (const std::string strategy : {"default", "mcmc"}) {
        SCOPED_TRACE(strategy);
        test::TempDir dir;
        auto config = [&](const std::string& name) {
            ParallelTrainConfig c = test_data::short_run((dir / name).string());
            c.strategy = strategy;
            c.mcmc.start = 5;
            c.mcmc.interval = 10;
            c.mcmc.stop = 35;
            c.mcmc.max_gaussians = 3200;
            c.mcmc.min_opacity = 0.05;
            c.mcmc.noise_lr = 5e3;
            return c;
        };
        const ParallelTrainResult whole = train_on(2, f, config("whole"));

        ParallelTrainConfig first = config("part");
        std::atomic<int> polls{0};
        first.stop = [&] { return ++polls > 2 * 16; };  // each of 2 ranks polls once a step: stops after 17
        Checkpoint saved;
        int saves = 0;
        first.save = [&](const Checkpoint& ck) {
            saved = ck;
            ++saves;
        };
        const ParallelTrainResult stopped = train_on(2, f, first);
        ASSERT_TRUE(stopped.stopped);
        ASSERT_EQ(stopped.losses.size(), 17u);
        EXPECT_EQ(saves, 2);  // the checkpoint at step 15, then the stop
        EXPECT_EQ(saved.step, 17);
        EXPECT_EQ(saved.ranks, 2);
        ASSERT_EQ(saved.ids.size(), saved.state.params.size());
        EXPECT_TRUE(std::is_sorted(saved.ids.begin(), saved.ids.end()));
        // Mid-interval: the statistics since the round at step 15 travel with their Gaussians.
        if (strategy == "default") {
            EXPECT_GT(*std::max_element(saved.state.stats.denom.begin(), saved.state.stats.denom.end()), 0);
        }

        const std::string file = (dir / "checkpoint.bin").string();
        write_checkpoint(file, saved);
        const Checkpoint back = read_checkpoint(file);
        EXPECT_EQ(back.ranks, 2);
        EXPECT_EQ(back.ids, saved.ids);
        EXPECT_EQ(back.view_order, saved.view_order);

        // Continued on 3 ranks, each from its part of the saved state.
        const ParallelTrainResult continued = test_data::continue_on(3, back, views, config("part"));
        EXPECT_EQ(continued.share_sizes.size(), 3u);
        std::vector<double> losses = stopped.losses;
        losses.insert(losses.end(), continued.losses.begin(), continued.losses.end());
        EXPECT_EQ(losses, whole.losses);
        EXPECT_EQ(continued.scene.size(), whole.scene.size());
        EXPECT_TRUE(read_file((dir / "part" / "scene.ply").string()) ==
                    read_file((dir / "whole" / "scene.ply").string()))
            << "the continued run's scene.ply differs from the uninterrupted run's";
    }
}

}  // namespace
}  // namespace radiant::distributed
