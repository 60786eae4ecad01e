#include "radiant/distributed/gaussian_parallel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "radiant/core/error.hpp"
#include "radiant/render/cpu/render_cpu.hpp"
#include "support/random_scene.hpp"

namespace radiant::distributed {
namespace {

// A scene to train, the photos of another scene it should become, and the cameras that took them.
struct Fixture {
    Scene start;
    std::vector<Camera> cameras;
    std::vector<Image<float>> targets;
    RenderSettings settings;

    explicit Fixture(int views) {
        test::RandomSceneOptions o;
        o.count = 3000;
        o.sh_degree = 1;
        start = test::random_scene(1, o);
        // Pairs at one position (the same depth in every view), as a clone leaves them: the order of equal
        // depths decides what is in front, and it must be the same whatever rank each Gaussian lives on.
        for (std::size_t i = 0; i < 300; ++i)
            for (std::size_t a = 0; a < 3; ++a) start.means[3 * (1500 + i) + a] = start.means[3 * i + a];
        const Scene truth = test::random_scene(2, o);
        settings.background = {0.2, 0.1, 0.3};
        for (int v = 0; v < views; ++v) {
            cameras.push_back(test::random_camera(std::uint32_t(10 + v), 96, 72));
            targets.push_back(cpu::render_forward(truth, cameras.back(), settings).rgb);
        }
    }

    // Step k's batch: `size` views, walking through the cameras.
    BatchStepInput batch(int k, int size) const {
        BatchStepInput in;
        in.settings = settings;
        in.lr = {1.6e-3, 5e-3, 1e-3, 5e-2, 2.5e-3, 1.25e-4};
        for (int j = 0; j < size; ++j) {
            const std::size_t v = std::size_t(k * size + j) % cameras.size();
            in.views.push_back({&cameras[v], &targets[v]});
        }
        return in;
    }
};

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
    EXPECT_EQ(a.size(), b.size());
    double d = 0;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        d = std::max(d, std::abs(double(a[i]) - b[i]));
    return d;
}

// Trains K steps with `ranks` ranks and with one process, same batches; the merged parameters, the losses
// and the densification statistics must agree.
void expect_ranks_match_one_process(int ranks, int batch_size) {
    const Fixture f(8);
    constexpr int kSteps = 5;
    Scene reference = f.start;
    AdamState adam;
    adam.reset_like(reference);
    GrowthStats ref_stats;
    std::vector<double> ref_losses;
    for (int k = 0; k < kSteps; ++k)
        ref_losses.push_back(batch_step_single(reference, adam, f.batch(k, batch_size), &ref_stats));

    Scene merged;
    std::vector<std::vector<double>> losses(static_cast<std::size_t>(ranks));
    GrowthStats stats;  // by global id; each rank writes only its own Gaussians' entries
    stats.grad_norm_sum.assign(f.start.size(), -1);
    stats.views_seen.assign(f.start.size(), 0);
    std::vector<std::size_t> sent(static_cast<std::size_t>(ranks));
    run_in_process(ranks, [&](Communicator& c) {
        Share share = initial_share(f.start, c.rank(), ranks);
        GrowthStats mine;
        for (int k = 0; k < kSteps; ++k) {
            const BatchStepResult r = batch_step(c, share, f.batch(k, batch_size), &mine);
            losses[std::size_t(c.rank())].push_back(r.loss);
            sent[std::size_t(c.rank())] += r.sent_gaussians;
        }
        for (std::size_t i = 0; i < share.ids.size(); ++i) {
            stats.grad_norm_sum[share.ids[i]] = mine.grad_norm_sum[i];
            stats.views_seen[share.ids[i]] = mine.views_seen[i];
        }
        Scene all = merge(c, share);
        if (c.rank() == 0) merged = std::move(all);
    });

    const double d = std::max({max_abs_diff(merged.means, reference.means),
                               max_abs_diff(merged.log_scales, reference.log_scales),
                               max_abs_diff(merged.quats, reference.quats),
                               max_abs_diff(merged.opacity_logits, reference.opacity_logits),
                               max_abs_diff(merged.sh, reference.sh)});
    std::printf("[gaussian-parallel] %d ranks, batch %d: largest parameter difference after %d steps %.3g\n",
                ranks, batch_size, kSteps, d);
    EXPECT_LE(d, 1e-6) << ranks << " ranks";
    // The run really moved the parameters, so matching them says something.
    EXPECT_GT(max_abs_diff(reference.means, f.start.means), 1e-4);
    for (const auto& l : losses) {
        ASSERT_EQ(l.size(), ref_losses.size());
        for (std::size_t k = 0; k < l.size(); ++k) EXPECT_NEAR(l[k], ref_losses[k], 1e-9 * ref_losses[k]);
    }
    EXPECT_LT(ref_losses.back(), ref_losses.front());
    for (std::size_t g = 0; g < f.start.size(); ++g) {
        ASSERT_NEAR(stats.grad_norm_sum[g], ref_stats.grad_norm_sum[g],
                    1e-9 + 1e-6 * ref_stats.grad_norm_sum[g])
            << "Gaussian " << g;
        ASSERT_EQ(stats.views_seen[g], ref_stats.views_seen[g]) << "Gaussian " << g;
    }
    // Only Gaussians a view can see travel: fewer than every Gaussian to every view.
    std::size_t total_sent = 0;
    for (std::size_t s : sent) total_sent += s;
    EXPECT_LT(total_sent, std::size_t(kSteps * batch_size) * f.start.size());
}

TEST(GaussianParallel, OneTwoAndFourRanksGiveOneProcesssParameters) {
    for (int ranks : {1, 2, 4}) expect_ranks_match_one_process(ranks, 4);
}

TEST(GaussianParallel, RanksWithoutAViewToRenderStillTrainTheirShare) {
    expect_ranks_match_one_process(4, 3);  // rank 3 renders nothing, yet owns a quarter of the Gaussians
    expect_ranks_match_one_process(3, 7);  // views 0, 3, 6 on rank 0: a rank renders several
}

TEST(GaussianParallel, RayShadingIsRefusedWithAReason) {
    const Fixture f(1);
    BatchStepInput in = f.batch(0, 1);
    in.settings.shading = Shading::ray;
    Scene s = f.start;
    AdamState a;
    a.reset_like(s);
    EXPECT_THROW(batch_step_single(s, a, in), Error);
}

}  // namespace
}  // namespace radiant::distributed
