#include "radiant/distributed/gaussian_parallel.hpp"

#include <algorithm>
#include <functional>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "distributed/fixture.hpp"
#include "radiant/core/error.hpp"
#include "radiant/distributed/densify_ranks.hpp"
#include "radiant/distributed/view_assignment.hpp"
#include "radiant/render/cpu/render_cpu.hpp"

namespace radiant::distributed {
namespace {

using test_data::Fixture;

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
    EXPECT_EQ(a.size(), b.size());
    double d = 0;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        d = std::max(d, std::abs(double(a[i]) - b[i]));
    return d;
}

// What a run leaves: the scene in id order, each step's loss, the densification statistics by id.
struct RunResult {
    Scene scene;
    std::vector<double> losses;
    DensifyStats stats;
    std::vector<DensifyCounts> densified;
    std::size_t sent = 0;
    double busiest_pairs = 0;  // Σ over steps of the most tile pairs one rank rendered
};

// `steps` batch steps; after the steps listed in densify_after, ADC densification (statistics from then on
// start again).
struct Schedule {
    int steps = 5, batch = 4;
    std::vector<int> densify_after;
    AdcConfig adc;
    bool balance = false;  // views dealt to ranks by measured cost (assign_views), not round robin
};

AdcConfig test_adc() {
    AdcConfig a;
    a.grad_threshold = 2e-5;  // low enough for a few steps' statistics to clone and split
    a.min_opacity = 0.05;     // and to prune
    a.percent_dense = 0.05;   // half the random scene's Gaussians small enough to clone, half split
    return a;
}

constexpr double kExtent = 2.0;

bool densifies_after(const Schedule& s, int k) {
    return std::find(s.densify_after.begin(), s.densify_after.end(), k) != s.densify_after.end();
}

RunResult run_one_process(const Fixture& f, const Schedule& sch) {
    RunResult run;
    run.scene = f.start;
    AdamState adam;
    adam.reset_like(run.scene);
    run.stats.reset(run.scene.size());
    for (int k = 0; k < sch.steps; ++k) {
        run.losses.push_back(batch_step_single(run.scene, adam, f.batch(k, sch.batch), &run.stats));
        if (!densifies_after(sch, k)) continue;
        const DensifyPlan plan = plan_adc(run.scene, run.stats, sch.adc, kExtent, k, std::uint64_t(k));
        DensifyCounts c;
        c.clone = plan.clone.size();
        c.split = plan.split.size();
        for (std::uint8_t p : plan.prune) c.prune += p;
        c.capped = plan.capped;
        run.densified.push_back(c);
        apply_plan(plan, run.scene, adam, run.stats);
    }
    return run;
}

RunResult run_ranks(int ranks, const Fixture& f, const Schedule& sch) {
    RunResult run;
    std::vector<std::vector<double>> losses(static_cast<std::size_t>(ranks));
    std::vector<std::vector<DensifyCounts>> counts(static_cast<std::size_t>(ranks));
    std::vector<std::size_t> sent(static_cast<std::size_t>(ranks));
    std::vector<std::pair<std::vector<std::uint64_t>, DensifyStats>> stats(static_cast<std::size_t>(ranks));
    run_in_process(ranks, [&](Communicator& c) {
        const std::size_t r = std::size_t(c.rank());
        Share share = initial_share(f.start, c.rank(), ranks);
        DensifyStats mine;
        mine.reset(share.scene.size());
        ViewCosts costs(f.cameras.size());
        for (int k = 0; k < sch.steps; ++k) {
            BatchStepInput in = f.batch(k, sch.batch);
            if (sch.balance) {
                std::vector<double> estimate;
                for (int j = 0; j < sch.batch; ++j)
                    estimate.push_back(costs.estimate(f.view_of(k, j, sch.batch)));
                in.renderers = assign_views(estimate, ranks);
            }
            const BatchStepResult step = batch_step(c, share, in, &mine);
            for (int j = 0; j < sch.batch; ++j)
                costs.observe(f.view_of(k, j, sch.batch), step.view_pairs[std::size_t(j)]);
            losses[r].push_back(step.loss);
            sent[r] += step.sent_gaussians;
            std::vector<double> pairs(static_cast<std::size_t>(ranks), 0.0);
            pairs[r] = double(step.rendered_pairs);
            c.all_reduce_sum(pairs);
            if (r == 0) run.busiest_pairs += *std::max_element(pairs.begin(), pairs.end());
            if (densifies_after(sch, k))
                counts[r].push_back(densify_adc_ranks(c, share, mine, sch.adc, kExtent, k, std::uint64_t(k)));
        }
        stats[r] = {share.ids, mine};
        Scene all = merge(c, share);
        if (r == 0) run.scene = std::move(all);
    });
    for (std::size_t r = 1; r < losses.size(); ++r) {
        EXPECT_EQ(losses[r], losses[0]) << "rank " << r << " reports another loss";
        EXPECT_EQ(counts[r].size(), counts[0].size());
    }
    run.losses = losses[0];
    run.densified = counts[0];
    for (std::size_t s : sent) run.sent += s;
    run.stats.reset(run.scene.size());
    for (const auto& [ids, st] : stats)
        for (std::size_t i = 0; i < ids.size(); ++i) {
            run.stats.grad_accum[ids[i]] = st.grad_accum[i];
            run.stats.denom[ids[i]] = st.denom[i];
            run.stats.max_radii[ids[i]] = st.max_radii[i];
        }
    return run;
}

double largest_difference(const Scene& a, const Scene& b) {
    return std::max({max_abs_diff(a.means, b.means), max_abs_diff(a.log_scales, b.log_scales),
                     max_abs_diff(a.quats, b.quats), max_abs_diff(a.opacity_logits, b.opacity_logits),
                     max_abs_diff(a.sh, b.sh)});
}

// The same batches on `ranks` ranks and on one process: the merged parameters, the losses, the densification
// decisions and statistics must agree.
RunResult expect_ranks_match_one_process(int ranks, const Schedule& sch, bool ray = false) {
    const Fixture f(8, ray);
    const RunResult one = run_one_process(f, sch);
    RunResult many = run_ranks(ranks, f, sch);
    EXPECT_EQ(many.scene.size(), one.scene.size()) << ranks << " ranks";
    if (many.scene.size() != one.scene.size()) return many;
    const double d = largest_difference(many.scene, one.scene);
    std::printf(
        "[gaussian-parallel] %s, %d ranks, batch %d, %zu densifications: %zu Gaussians, largest "
        "parameter difference after %d steps %.3g\n",
        ray ? "ray" : "ewa", ranks, sch.batch, sch.densify_after.size(), many.scene.size(), sch.steps, d);
    EXPECT_LE(d, 1e-6) << ranks << " ranks";
    for (const DensifyCounts& c : one.densified)
        std::printf("  densified: clone %zu, split %zu, prune %zu%s\n", c.clone, c.split, c.prune,
                    c.capped ? " (capped)" : "");
    // The run really changed the scene, so matching it says something.
    if (sch.densify_after.empty()) {
        EXPECT_GT(largest_difference(one.scene, f.start), 1e-4);
        EXPECT_LT(one.losses.back(), one.losses.front());
    } else {
        EXPECT_GT(one.scene.size(), f.start.size());
    }
    EXPECT_EQ(many.losses.size(), one.losses.size());
    for (std::size_t k = 0; k < std::min(one.losses.size(), many.losses.size()); ++k)
        EXPECT_NEAR(many.losses[k], one.losses[k], 1e-9 * one.losses[k]) << "step " << k;
    EXPECT_EQ(many.densified.size(), one.densified.size());
    for (std::size_t k = 0; k < std::min(one.densified.size(), many.densified.size()); ++k) {
        EXPECT_EQ(many.densified[k].clone, one.densified[k].clone);
        EXPECT_EQ(many.densified[k].split, one.densified[k].split);
        EXPECT_EQ(many.densified[k].prune, one.densified[k].prune);
        EXPECT_EQ(many.densified[k].capped, one.densified[k].capped);
    }
    EXPECT_EQ(many.stats.grad_accum, one.stats.grad_accum);
    EXPECT_EQ(many.stats.denom, one.stats.denom);
    EXPECT_EQ(many.stats.max_radii, one.stats.max_radii);
    // Only Gaussians a view can see travel: fewer than every Gaussian to every view.
    if (sch.densify_after.empty()) {
        EXPECT_LT(many.sent, std::size_t(sch.steps * sch.batch) * f.start.size());
    }
    return many;
}

TEST(GaussianParallel, OneTwoAndFourRanksGiveOneProcesssParameters) {
    for (int ranks : {1, 2, 4}) expect_ranks_match_one_process(ranks, Schedule{});
}

TEST(GaussianParallel, RanksWithoutAViewToRenderStillTrainTheirShare) {
    expect_ranks_match_one_process(4, Schedule{5, 3, {}, {}});  // rank 3 renders nothing, yet owns a quarter
    expect_ranks_match_one_process(
        3, Schedule{5, 7, {}, {}});  // views 0, 3, 6 on rank 0: a rank renders several
}

TEST(GaussianParallel, RayShadingThroughADistortedLensSplitsToo) {
    for (int ranks : {2, 4}) expect_ranks_match_one_process(ranks, Schedule{}, true);
}

TEST(GaussianParallel, ViewsDealtByMeasuredCostChangeNoParameterAndEvenTheLoad) {
    Schedule sch{12, 6, {}, {}, false};
    const RunResult round_robin = expect_ranks_match_one_process(3, sch);
    sch.balance = true;
    const RunResult balanced = expect_ranks_match_one_process(3, sch);
    std::printf(
        "[gaussian-parallel] busiest rank's tile pairs over %d steps: %.0f round robin, %.0f by cost\n",
        sch.steps, round_robin.busiest_pairs, balanced.busiest_pairs);
    EXPECT_LT(balanced.busiest_pairs, 0.9 * round_robin.busiest_pairs);
}

TEST(GaussianParallel, DensifyingDecidesAsOneProcessAndRebalances) {
    Schedule sch{8, 4, {2, 5}, test_adc()};
    for (int ranks : {2, 4}) expect_ranks_match_one_process(ranks, sch);
    // Under a cap the largest gradients of the whole scene go first, whichever rank holds them.
    sch.adc.max_gaussians = 3100;
    for (int ranks : {1, 4}) expect_ranks_match_one_process(ranks, sch);
    expect_ranks_match_one_process(3, sch, true);
}

// The new ids are counted over the ids 0 … N−1, each held once: shares that break that are refused by name,
// on one rank and on several.
TEST(GaussianParallel, DensifyingRefusesIdsThatAreNotANumbering) {
    const Fixture f(8);
    auto densify_with = [&](int ranks, const std::function<void(int, Share&)>& spoil) {
        run_in_process(ranks, [&](Communicator& c) {
            Share share = initial_share(f.start, c.rank(), ranks);
            spoil(c.rank(), share);
            DensifyStats stats;
            stats.reset(share.scene.size());
            densify_adc_ranks(c, share, stats, test_adc(), kExtent, 7, 1);
        });
    };
    auto refused = [&](int ranks, const std::function<void(int, Share&)>& spoil) {
        try {
            densify_with(ranks, spoil);
        } catch (const Error& e) {
            return std::string(e.what()).find("ids are not 0 … N−1") != std::string::npos;
        }
        return false;
    };
    EXPECT_NO_THROW(densify_with(2, [](int, Share&) {}));
    EXPECT_TRUE(refused(1, [](int, Share& s) { s.ids.back() += 1; }));  // a gap
    // One id on both ranks, another on neither.
    EXPECT_TRUE(refused(2, [](int rank, Share& s) {
        if (rank == 1) s.ids.back() = s.ids.front() == 0 ? 1 : 0;
    }));
}

}  // namespace
}  // namespace radiant::distributed
