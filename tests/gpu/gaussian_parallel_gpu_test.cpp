// Issue 25 on a GPU: the Gaussian-parallel step on the GPU stages (CudaStep's projection, raster from
// records other ranks projected, geometry backward and Adam) gives what the CPU stages give, for both shading
// models through a distorted lens; 1 and 2 ranks (threads sharing the one GPU, each with its own CudaStep)
// agree; and the whole loop (ADC, opacity reset, checkpoints; MCMC) trains on them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <random>

#include "distributed/fixture.hpp"
#include "radiant/distributed/densify_ranks.hpp"
#include "radiant/distributed/parallel_training.hpp"
#include "radiant/distributed/share_stages.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#include "radiant/train/checkpoint.hpp"
#include "support/temp_dir.hpp"

namespace radiant::distributed {
namespace {

// The fixture with 8-bit targets, as the GPU stages hold them, so that both backends see the same images.
test_data::Fixture quantised(bool ray) {
    test_data::Fixture f(8, ray);
    for (Image<float>& t : f.targets)
        for (float& v : t.data) v = float(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)) / 255.0f;
    return f;
}

std::vector<BatchView> views_of(const test_data::Fixture& f) {
    std::vector<BatchView> views;
    for (std::size_t v = 0; v < f.cameras.size(); ++v) views.push_back({&f.cameras[v], &f.targets[v], v});
    return views;
}

// What `steps` batch steps leave, merged in id order: the scene, the first step's gradient (Adam's first
// moment after one step is (1 − β1) × the gradient), each step's loss and the visibility counts.
struct Stepped {
    Scene scene, first_grads;
    std::vector<double> losses;
    double denom_total = 0;
};

Stepped run_steps(const test_data::Fixture& f, const std::string& backend, int ranks, int steps) {
    const std::vector<BatchView> views = views_of(f);
    Stepped out;
    run_in_process(ranks, [&](Communicator& comm) {
        Share share = initial_share(f.start, comm.rank(), ranks);
        DensifyStats stats;
        stats.reset(share.scene.size());
        const auto stages = make_share_stages(backend, views);
        stages->load(share, stats);
        std::vector<double> losses;
        Scene first;
        for (int k = 0; k < steps; ++k) {
            const BatchStepInput in = f.batch(k, 4);
            losses.push_back(batch_step(comm, *stages, share, in, &stats).loss);
            if (k == 0) {
                stages->store(share, stats);
                first = merge(comm, Share{share.adam.m, share.ids, {}});
            }
        }
        stages->store(share, stats);
        std::vector<double> denom{0.0};
        for (std::int32_t d : stats.denom) denom[0] += d;
        comm.all_reduce_sum(denom);
        const Scene merged = merge(comm, share);
        if (comm.rank() == 0) {
            out.scene = merged;
            out.first_grads = first;
            out.losses = losses;
            out.denom_total = denom[0];
        }
    });
    return out;
}

double max_abs(const std::vector<float>& a) {
    double m = 0;
    for (float v : a) m = std::max(m, double(std::abs(v)));
    return m;
}

// Largest difference of two scenes' arrays, relative to the largest magnitude of the first's.
double relative_diff(const Scene& a, const Scene& b) {
    double worst = 0;
    auto cmp = [&](const std::vector<float>& x, const std::vector<float>& y) {
        EXPECT_EQ(x.size(), y.size());
        if (x.size() != y.size()) return;
        const double scale = std::max(max_abs(x), 1e-30);
        for (std::size_t i = 0; i < x.size(); ++i)
            worst = std::max(worst, std::abs(double(x[i]) - y[i]) / scale);
    };
    cmp(a.means, b.means);
    cmp(a.log_scales, b.log_scales);
    cmp(a.quats, b.quats);
    cmp(a.opacity_logits, b.opacity_logits);
    cmp(a.sh, b.sh);
    return worst;
}

// Share of parameter values that moved apart by more than `tol` (Adam's first steps move a value by about
// its learning rate whatever its gradient's size, so a gradient near zero may step either way).
double share_apart(const Scene& a, const Scene& b, double tol) {
    std::size_t apart = 0, total = 0;
    auto cmp = [&](const std::vector<float>& x, const std::vector<float>& y) {
        for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i, ++total)
            apart += std::abs(double(x[i]) - y[i]) > tol;
    };
    cmp(a.means, b.means);
    cmp(a.log_scales, b.log_scales);
    cmp(a.quats, b.quats);
    cmp(a.opacity_logits, b.opacity_logits);
    cmp(a.sh, b.sh);
    return double(apart) / double(std::max<std::size_t>(total, 1));
}

class GpuShareStages : public ::testing::TestWithParam<bool> {};

TEST_P(GpuShareStages, StepsMatchTheCpuStagesAndOneRank) {
    if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
    const bool ray = GetParam();
    const test_data::Fixture f = quantised(ray);
    constexpr int kSteps = 3;
    const Stepped cpu = run_steps(f, "cpu", 1, kSteps);
    const Stepped gpu1 = run_steps(f, "cuda", 1, kSteps);
    const Stepped gpu2 = run_steps(f, "cuda", 2, kSteps);
    const double grad_cpu = relative_diff(cpu.first_grads, gpu1.first_grads);
    const double grad_ranks = relative_diff(gpu1.first_grads, gpu2.first_grads);
    const double apart_cpu = share_apart(cpu.scene, gpu1.scene, 1e-4);
    const double apart_ranks = share_apart(gpu1.scene, gpu2.scene, 1e-4);
    std::printf(
        "[gpu stages %s] losses cpu %.6f %.6f %.6f, gpu 1 rank %.6f %.6f %.6f, 2 ranks %.6f %.6f %.6f; first "
        "gradient vs cpu %.2e, 1 vs 2 ranks %.2e (of the largest); after %d steps values apart by > 1e-4: "
        "%.4f %% vs cpu, %.4f %% 1 vs 2 ranks; visibility counts %.0f / %.0f / %.0f\n",
        ray ? "ray, distorted" : "ewa", cpu.losses[0], cpu.losses[1], cpu.losses[2], gpu1.losses[0],
        gpu1.losses[1], gpu1.losses[2], gpu2.losses[0], gpu2.losses[1], gpu2.losses[2], grad_cpu, grad_ranks,
        kSteps, 100 * apart_cpu, 100 * apart_ranks, cpu.denom_total, gpu1.denom_total, gpu2.denom_total);
    ASSERT_EQ(gpu1.losses.size(), std::size_t(kSteps));
    ASSERT_EQ(gpu2.losses.size(), std::size_t(kSteps));
    for (int k = 0; k < kSteps; ++k) {
        EXPECT_NEAR(gpu1.losses[std::size_t(k)], cpu.losses[std::size_t(k)],
                    1e-4 * cpu.losses[std::size_t(k)]);
        EXPECT_NEAR(gpu2.losses[std::size_t(k)], gpu1.losses[std::size_t(k)],
                    1e-5 * gpu1.losses[std::size_t(k)]);
    }
    EXPECT_LT(grad_cpu, 1e-3);
    EXPECT_LT(grad_ranks, 1e-4);
    EXPECT_LT(apart_cpu, 0.005);
    EXPECT_LT(apart_ranks, 0.002);
    EXPECT_EQ(gpu1.denom_total, cpu.denom_total);
    EXPECT_EQ(gpu2.denom_total, gpu1.denom_total);
    EXPECT_GT(gpu1.denom_total, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Shading, GpuShareStages, ::testing::Values(false, true), [](const auto& info) {
    return info.param ? std::string("ray") : std::string("ewa");
});

// The training loop on the GPU stages: 1 and 2 ranks train the CPU tests' short run (ADC, an opacity reset,
// checkpoints; MCMC's relocation, growth, noise and regularisers) to where the CPU stages train it, within
// float noise, and each writes its merged scene.ply. (The ADC run ends 20 steps after its opacity reset,
// above its first loss, on either backend.)
TEST(GpuShareStages, LoopTrainsOnOneAndTwoRanks) {
    if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
    for (const std::string strategy : {"default", "mcmc"}) {
        const test_data::Fixture f = quantised(false);
        const std::vector<BatchView> views = views_of(f);
        test::TempDir dir;
        std::vector<ParallelTrainResult> runs(3);
        for (int r : {0, 1, 2}) {
            const int ranks = r == 2 ? 2 : 1;
            ParallelTrainConfig c = test_data::short_run((dir / std::to_string(r)).string());
            c.backend = r == 0 ? "cpu" : "cuda";
            c.strategy = strategy;
            c.mcmc.start = 5;
            c.mcmc.interval = 10;
            c.mcmc.stop = 30;
            c.mcmc.max_gaussians = 3600;
            run_in_process(ranks, [&](Communicator& comm) {
                ParallelTrainResult res = train_gaussian_parallel(comm, f.start, views, c);
                if (comm.rank() == 0) runs[std::size_t(r)] = std::move(res);
            });
            EXPECT_TRUE(std::filesystem::exists(dir / std::to_string(r) / "scene.ply"));
        }
        std::printf(
            "[gpu loop %s] Gaussians %zu → cpu %zu, gpu 1 rank %zu, 2 ranks %zu; last loss cpu %.5f, gpu "
            "%.5f / %.5f (first %.5f)\n",
            strategy.c_str(), f.start.size(), runs[0].scene.size(), runs[1].scene.size(),
            runs[2].scene.size(), runs[0].losses.back(), runs[1].losses.back(), runs[2].losses.back(),
            runs[0].losses.front());
        for (int r : {1, 2}) {
            const ParallelTrainResult& run = runs[std::size_t(r)];
            ASSERT_EQ(run.losses.size(), runs[0].losses.size());
            EXPECT_NEAR(run.losses.back(), runs[0].losses.back(), 0.02 * runs[0].losses.back());
            const double size_ratio = double(run.scene.size()) / double(runs[0].scene.size());
            EXPECT_NEAR(size_ratio, 1.0, 0.02);
        }
        EXPECT_GT(runs[1].scene.size(), f.start.size());
    }
}

// A run on the GPU stages stopped after step 17 (between two densification rounds) and continued from the
// state it saved, on two ranks each loading its part: it ends where the uninterrupted run ends, within the
// float noise the GPU's atomics leave (as the loop test's tolerances), and takes up the moments' step count.
TEST(GpuShareStages, AStoppedLoopContinuesFromItsSavedState) {
    if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
    const test_data::Fixture f = quantised(false);
    const std::vector<BatchView> views = views_of(f);
    test::TempDir dir;
    auto config = [&](const std::string& name) {
        ParallelTrainConfig c = test_data::short_run((dir / name).string());
        c.backend = "cuda";
        return c;
    };
    ParallelTrainResult whole;
    run_in_process(1, [&](Communicator& comm) {
        whole = train_gaussian_parallel(comm, f.start, views, config("whole"));
    });

    ParallelTrainConfig first = config("part");
    int polls = 0;
    first.stop = [&] { return ++polls > 16; };  // one rank polls once a step: stops after step 17
    Checkpoint saved;
    first.save = [&](Checkpoint& ck) { saved = ck; };
    ParallelTrainResult stopped;
    run_in_process(
        1, [&](Communicator& comm) { stopped = train_gaussian_parallel(comm, f.start, views, first); });
    ASSERT_TRUE(stopped.stopped);
    ASSERT_EQ(saved.step, 17);
    EXPECT_EQ(saved.state.adam.step, 17);

    const ParallelTrainResult continued = test_data::continue_on(2, saved, views, config("part"));
    std::printf(
        "[gpu resume] stopped at 17 with %zu Gaussians, continued on 2 ranks to %zu (uninterrupted %zu); "
        "last loss %.5f (%.5f)\n",
        saved.state.params.size(), continued.scene.size(), whole.scene.size(), continued.losses.back(),
        whole.losses.back());
    ASSERT_EQ(stopped.losses.size() + continued.losses.size(), whole.losses.size());
    EXPECT_NEAR(continued.losses.back(), whole.losses.back(), 0.02 * whole.losses.back());
    EXPECT_NEAR(double(continued.scene.size()) / double(whole.scene.size()), 1.0, 0.02);
}

// Tile edges chosen by timing (auto_tile_size) on 2 ranks: every rank takes the same edge each step (a
// record's tiles are decided on the rank that projects it, the raster on the rank that renders it; ranks
// that disagreed would render garbage), both edges are tried in the tuner's first window, and the run trains
// as one with the configured edge does (the edge changes only the order of the gradient atomics).
TEST(GpuShareStages, TileEdgesChosenByTimingAgreeOnEveryRank) {
    if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
    const test_data::Fixture f = quantised(false);
    const std::vector<BatchView> views = views_of(f);
    ParallelTrainConfig c = test_data::short_run("");
    c.backend = "cuda";
    c.steps = 240;  // past TileTuner's first window (from step 200, 8 steps of each edge)
    c.adc.stop = 0;
    c.checkpoint_every = 0;
    std::vector<std::vector<double>> losses(2);
    std::vector<std::string> chosen(2);
    for (const bool tuned : {false, true}) {
        c.auto_tile_size = tuned;
        run_in_process(2, [&](Communicator& comm) {
            const ParallelTrainResult r = train_gaussian_parallel(comm, f.start, views, c);
            if (comm.rank() == 0) losses[tuned ? 1 : 0] = r.losses;
            if (tuned) chosen[std::size_t(comm.rank())] = r.tiles;
        });
    }
    double worst = 0;
    for (std::size_t k = 0; k < losses[0].size() && k < losses[1].size(); ++k)
        worst = std::max(worst, std::abs(losses[1][k] - losses[0][k]) / losses[0][k]);
    std::printf("[gpu tiles] rank 0: %s; rank 1: %s; losses apart by at most %.2e (relative)\n",
                chosen[0].c_str(), chosen[1].c_str(), worst);
    ASSERT_EQ(losses[1].size(), losses[0].size());
    EXPECT_FALSE(chosen[0].empty());
    EXPECT_EQ(chosen[0], chosen[1]);
    EXPECT_LT(worst, 0.01);
}

// Densification where the GPU stages keep the share (issue 25: no download and upload of every rank's whole
// share): ADC with its rebalance (Gaussians moving between 2 ranks), free and under a cap, then the opacity
// reset, MCMC's noise and its relocation and growth, leave what the host share gives, on 1 and 2 ranks — the
// same ids and counts, parameters and moments within the GPU's float rounding (a split's draw, the MCMC
// correction).
TEST(GpuShareStages, DensifyingOnTheGpuIsDensifyingOnTheHost) {
    if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
    const test_data::Fixture f = quantised(false);
    const std::vector<BatchView> views = views_of(f);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(0.f, 1.f);
    // Statistics and moments of every Gaussian by id, so that each rank's share draws the same.
    const std::size_t n = f.start.size();
    DensifyStats whole_stats;
    whole_stats.reset(n);
    AdamState whole_adam;
    whole_adam.reset_like(f.start);
    for (std::size_t i = 0; i < n; ++i) {
        whole_stats.grad_accum[i] = 4e-4f * u(rng);
        whole_stats.denom[i] = 1 + int(i % 3);
        whole_stats.max_radii[i] = 40 * u(rng);
    }
    for (std::vector<float>* a : {&whole_adam.m.means, &whole_adam.v.sh, &whole_adam.m.opacity_logits})
        for (float& v : *a) v = u(rng);
    // A cap with room for about half of what the free rule would add.
    const DensifyPlan free = plan_adc(f.start, whole_stats, AdcConfig{}, 1.0, 600, 77);
    ASSERT_GT(free.split.size() + free.clone.size(), 10u);
    for (std::size_t cap : {std::size_t(0), n + (free.split.size() + free.clone.size()) / 2}) {
        for (int ranks : {1, 2}) {
            std::vector<Share> host(static_cast<std::size_t>(ranks)), gpu(static_cast<std::size_t>(ranks));
            std::vector<DensifyCounts> host_counts(static_cast<std::size_t>(ranks)),
                gpu_counts(static_cast<std::size_t>(ranks)), host_mcmc(static_cast<std::size_t>(ranks)),
                gpu_mcmc(static_cast<std::size_t>(ranks));
            run_in_process(ranks, [&](Communicator& comm) {
                const std::size_t r = std::size_t(comm.rank());
                std::vector<std::uint64_t> ids(n);
                std::iota(ids.begin(), ids.end(), std::uint64_t(0));
                TrainState whole;
                whole.params = f.start;
                whole.adam = whole_adam;
                whole.stats = whole_stats;
                AdcConfig adc;
                adc.max_gaussians = cap;
                McmcConfig mcmc;
                mcmc.min_opacity = 0.3;  // some dead ones to relocate
                DensifyStats stats;
                Share share = share_of(whole, ids, comm.rank(), ranks, stats);
                const DensifyStats stats0 = stats;
                // On the host.
                Share& h = host[r];
                h = share;
                DensifyStats hs = stats;
                host_counts[r] = densify_adc_ranks(comm, h, hs, adc, 1.0, 600, 77);
                host_mcmc[r] = densify_mcmc_ranks(comm, h, hs, mcmc, 55);
                DensifyPlan reset;
                reset.reset_opacity = 0.01;
                apply_plan(reset, h.scene, h.adam, hs);
                add_position_noise(h.scene, 1e-3, 91, &h.ids);
                // On the GPU, in place.
                Share& g = gpu[r];
                g = share;
                DensifyStats gs = stats0;
                const auto stages = make_share_stages("cuda", views);
                stages->load(g, gs);
                const auto store = stages->in_place(g, gs);
                gpu_counts[r] = densify_adc_ranks(comm, *store, adc, 1.0, 600, 77);
                gpu_mcmc[r] = densify_mcmc_ranks(comm, *store, mcmc, 55);
                store->reset_opacity(0.01);
                store->add_noise(1e-3, 91);
                stages->store(g, gs);
                EXPECT_EQ(gs.grad_accum.size(), g.scene.size());
                EXPECT_EQ(*std::max_element(gs.denom.begin(), gs.denom.end()), 0);
            });
            for (int r = 0; r < ranks; ++r) {
                const std::size_t k = std::size_t(r);
                SCOPED_TRACE(::testing::Message() << ranks << " ranks, rank " << r << ", cap " << cap);
                EXPECT_EQ(gpu_counts[k].split, host_counts[k].split);
                EXPECT_EQ(gpu_counts[k].clone, host_counts[k].clone);
                EXPECT_EQ(gpu_counts[k].prune, host_counts[k].prune);
                EXPECT_EQ(gpu_counts[k].capped, cap > 0);
                EXPECT_GT(host_counts[k].split + host_counts[k].clone, 0u);
                EXPECT_EQ(gpu_mcmc[k].relocate, host_mcmc[k].relocate);
                EXPECT_EQ(gpu_mcmc[k].add, host_mcmc[k].add);
                EXPECT_GT(host_mcmc[k].relocate, 0u);
                EXPECT_GT(host_mcmc[k].add, 0u);
                ASSERT_EQ(gpu[k].ids, host[k].ids);
                EXPECT_LT(relative_diff(host[k].scene, gpu[k].scene), 1e-5);
                EXPECT_LT(relative_diff(host[k].adam.m, gpu[k].adam.m), 1e-6);
                EXPECT_LT(relative_diff(host[k].adam.v, gpu[k].adam.v), 1e-6);
            }
            if (ranks == 2) {
                // Densification moved Gaussians between the ranks (rows and rearrange ran).
                std::printf("[gpu densify] cap %zu: %zu + %zu Gaussians after (%zu before)\n", cap,
                            gpu[0].ids.size(), gpu[1].ids.size(), n);
                EXPECT_LE(std::max(gpu[0].ids.size(), gpu[1].ids.size()) -
                              std::min(gpu[0].ids.size(), gpu[1].ids.size()),
                          1u);
            }
        }
    }
}

}  // namespace
}  // namespace radiant::distributed
