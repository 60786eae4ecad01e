#include "radiant/distributed/parallel_training.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <numeric>
#include <random>
#include <sstream>

#include "radiant/core/error.hpp"
#include "radiant/distributed/densify_ranks.hpp"
#include "radiant/distributed/share_stages.hpp"
#include "radiant/distributed/view_assignment.hpp"
#include "radiant/io/ply.hpp"
#include "radiant/train/tile_tuner.hpp"

namespace radiant::distributed {
namespace {

// The merged scene to every rank; rank 0 writes it whole (atomically) when the run has an output folder.
Scene merge_and_write(Communicator& comm, const Share& share, const ParallelTrainConfig& c) {
    Scene merged = merge(comm, share);
    if (comm.rank() == 0 && !c.output.empty()) {
        std::filesystem::create_directories(c.output);
        write_ply((std::filesystem::path(c.output) / "scene.ply").string(), merged);
    }
    return merged;
}

}  // namespace

Checkpoint part_of(const Checkpoint& whole, int rank, int ranks) {
    RADIANT_CHECK(whole.ids.size() == whole.state.params.size(),
                  "part_of: a saved state needs one id a Gaussian");
    Checkpoint p;
    p.config_json = whole.config_json;
    p.step = whole.step;
    p.view_rng = whole.view_rng;
    p.background_rng = whole.background_rng;
    p.densify_rng = whole.densify_rng;
    p.view_order = whole.view_order;
    p.view_cursor = whole.view_cursor;
    p.history = whole.history;
    p.evals = whole.evals;
    p.seconds = whole.seconds;
    p.poses = whole.poses;
    p.ranks = whole.ranks;
    Share s = share_of(whole.state, whole.ids, rank, ranks, p.state.stats);
    p.state.params = std::move(s.scene);
    p.state.adam = std::move(s.adam);
    p.ids = std::move(s.ids);
    return p;
}

ParallelTrainResult train_gaussian_parallel(Communicator& comm, const Scene& initial,
                                            const std::vector<BatchView>& views,
                                            const ParallelTrainConfig& c) {
    RADIANT_CHECK(!views.empty(), "Gaussian-parallel training needs views");
    RADIANT_CHECK(c.batch >= 1 && std::size_t(c.batch) <= views.size(),
                  "the batch must hold between one view and all of them");
    RADIANT_CHECK(c.strategy == "default" || c.strategy == "mcmc",
                  "Gaussian-parallel training: the strategy is default or mcmc");
    const int ranks = comm.size();
    DensifyStats stats;
    Share share;
    if (c.resume) {
        const Checkpoint& part = *c.resume;
        RADIANT_CHECK(
            part.ids.size() == part.state.params.size() && std::is_sorted(part.ids.begin(), part.ids.end()),
            "the run to continue: a rank's part needs increasing ids, one a Gaussian");
        share.scene = part.state.params;
        share.adam = part.state.adam;
        share.ids = part.ids;
        stats = part.state.stats;
    } else {
        share = initial_share(initial, comm.rank(), ranks);
        stats.reset(share.scene.size());
    }
    const std::unique_ptr<ShareStages> stages = make_share_stages(c.backend, views);
    stages->load(share, stats);
    const std::unique_ptr<ShareStore> store = stages->in_place(share, stats);
    // The host share is current until a step runs on stages that keep it elsewhere.
    bool host_current = true;
    auto on_host = [&] {
        if (!host_current) stages->store(share, stats);
        host_current = true;
    };
    ViewCosts costs(views.size());
    // One view order on every rank: the same seed, the same shuffles.
    std::mt19937_64 order_rng(c.seed);
    std::vector<std::size_t> order;
    std::size_t cursor = 0;
    if (c.resume) {
        std::istringstream(c.resume->view_rng) >> order_rng;
        for (std::int32_t v : c.resume->view_order) {
            RADIANT_CHECK(v >= 0 && std::size_t(v) < views.size(),
                          "the run to continue has a view order for other views");
            order.push_back(std::size_t(v));
        }
        RADIANT_CHECK(c.resume->view_cursor <= order.size(),
                      "the run to continue has a view cursor past its order");
        cursor = c.resume->view_cursor;
    }
    // The whole state to `save` (rank 0), merged from every rank's share.
    auto save = [&](long step) {
        if (!c.save) return;  // every rank has the same config: all of them merge below, or none
        on_host();
        Checkpoint ck;
        ck.step = step;
        ck.ranks = ranks;
        ck.state = merge_state(comm, share, stats, ck.ids);
        if (comm.rank() != 0) return;
        std::ostringstream rng;
        rng << order_rng;
        ck.view_rng = rng.str();
        for (std::size_t v : order) ck.view_order.push_back(std::int32_t(v));
        ck.view_cursor = cursor;
        c.save(ck);
    };
    auto next_view = [&] {
        if (cursor == order.size()) {
            order.resize(views.size());
            std::iota(order.begin(), order.end(), std::size_t(0));
            std::shuffle(order.begin(), order.end(), order_rng);
            cursor = 0;
        }
        return order[cursor++];
    };
    // Tile edges by timing (GPU stages only: the CPU backend's sums run tile by tile, and its runs stay
    // reproducible bit for bit).
    const bool tune_tiles = c.auto_tile_size && c.backend == "cuda";
    TileTuner tiles(c.settings.tile_size);
    ParallelTrainResult result;
    const long first = c.resume ? c.resume->step + 1 : 1;
    long done = first - 1;
    for (long step = first; step <= c.steps; ++step) {
        done = step;
        BatchStepInput in;
        std::vector<std::size_t> batch;
        for (int j = 0; j < c.batch; ++j) {
            batch.push_back(next_view());
            in.views.push_back(views[batch.back()]);
        }
        in.settings = c.settings;
        in.settings.sh_degree = active_sh_degree(step, c.sh_degree, c.sh_interval);
        in.lr = learning_rates(c.lr, c.extent, step, c.steps);
        in.lambda_ssim = c.lambda_ssim;
        const bool mcmc = c.strategy == "mcmc";
        if (mcmc) {
            in.opacity_reg = c.mcmc.opacity_reg;
            in.scale_reg = c.mcmc.scale_reg;
        }
        if (tune_tiles) {
            // One edge a batch, timed at its first view's size (a capture's views usually share one).
            const Camera& cam = *in.views.front().camera;
            in.settings.tile_size = tiles.choose(cam.width, cam.height);
        }
        if (c.balance_views) {
            std::vector<double> estimate;
            for (std::size_t v : batch) estimate.push_back(costs.estimate(v));
            in.renderers = assign_views(estimate, ranks);
        }
        // Whether any rank was asked to stop and the scene's size before this step's densification, summed
        // over the ranks by the step's own all-reduce.
        enum : std::size_t { kStopAsked, kSizeBefore };
        in.also_sum = {c.stop && c.stop() ? 1.0 : 0.0, double(share.ids.size())};
        const BatchStepResult r = batch_step(comm, *stages, share, in, &stats);
        host_current = false;
        for (std::size_t j = 0; j < batch.size(); ++j) costs.observe(batch[j], r.view_pairs[j]);
        result.losses.push_back(r.loss);
        result.seconds += r.seconds;

        const auto densify_start = std::chrono::steady_clock::now();
        auto gaussians = std::size_t(r.also_summed[kSizeBefore]);
        if (mcmc) {
            // Relocation and growth, then the noise every step, where the share is; the noise keyed by id so
            // that a Gaussian draws the same on any rank.
            const McmcConfig& m = c.mcmc;
            if (step < m.stop && step > m.start && step % m.interval == 0)
                gaussians = densify_mcmc_ranks(comm, *store, m, c.seed + std::uint64_t(step)).gaussians;
            store->add_noise(m.noise_lr * in.lr.means, c.seed ^ (std::uint64_t(step) << 32 | 0x5eedull));
        } else {
            // ADC and the opacity reset, on the steps the single-process trainer takes them, where the share
            // is.
            const AdcConfig& a = c.adc;
            if (step < a.stop && step > a.start && step % a.interval == 0)
                gaussians = densify_adc_ranks(comm, *store, a, c.extent, step, c.seed + std::uint64_t(step))
                                .gaussians;
            if (step < a.stop && a.reset_every > 0 && step % a.reset_every == 0 &&
                c.steps - step >= a.reset_every / 2)
                store->reset_opacity(0.01);
        }
        host_current = false;  // the stages' share may have changed in place
        result.densify_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - densify_start).count();
        if (c.on_step) c.on_step(step, r.loss, gaussians);
        // The ranks' summed step time is the same on every rank, so the tuner's choices agree.
        if (tune_tiles) tiles.record(r.ranks_seconds / double(ranks));
        if (r.also_summed[kStopAsked] > 0 && step < c.steps) {
            result.stopped = true;
            break;
        }
        if (c.checkpoint_every > 0 && step % c.checkpoint_every == 0 && step < c.steps) {
            on_host();
            const Scene merged = merge_and_write(comm, share, c);
            save(step);
            if (comm.rank() == 0 && c.after_checkpoint) c.after_checkpoint(step, merged);
        }
    }
    on_host();
    result.tiles = tiles.summary();
    result.scene = merge_and_write(comm, share, c);
    save(done);
    std::vector<double> sizes(2 * static_cast<std::size_t>(ranks), 0.0);
    sizes[std::size_t(comm.rank())] = double(share.scene.size());
    sizes[std::size_t(ranks + comm.rank())] = double(stages->peak_bytes());
    comm.all_reduce_sum(sizes);
    for (int k = 0; k < ranks; ++k) {
        result.share_sizes.push_back(std::size_t(sizes[std::size_t(k)]));
        result.peak_bytes.push_back(std::size_t(sizes[std::size_t(ranks + k)]));
    }
    return result;
}

}  // namespace radiant::distributed
