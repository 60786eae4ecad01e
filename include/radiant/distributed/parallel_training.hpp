#pragma once
// The Gaussian-parallel training loop over ranks: batches of views in one seeded order on every rank, dealt
// to ranks by measured cost, the trainer's learning-rate and SH schedules, ADC densification and opacity
// resets or MCMC's relocation, growth, noise and regularisers as the single-process trainer does them, and
// one merged scene.ply (issue 25; gsplat #551) written by rank 0 at every checkpoint and at the end. The
// stages are the CPU backend's or a GPU's (share_stages.hpp); densification, the opacity reset and MCMC's
// noise run where the stages keep the share (ShareStore), the decisions taken over every rank's Gaussians.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "radiant/core/render_settings.hpp"
#include "radiant/distributed/communicator.hpp"
#include "radiant/distributed/gaussian_parallel.hpp"
#include "radiant/train/checkpoint.hpp"
#include "radiant/train/densify.hpp"
#include "radiant/train/schedule.hpp"

namespace radiant::distributed {

struct ParallelTrainConfig {
    long steps = 1000;
    int batch = 4;  // views a step, over all ranks
    RenderSettings settings;
    int sh_degree = 3;
    long sh_interval = 1000;
    LrConfig lr;
    std::string strategy = "default";  // "default" (ADC) or "mcmc"
    AdcConfig adc;                     // densify while start < step < stop (stop ≤ start: never)
    McmcConfig mcmc;                   // with strategy "mcmc": relocation, growth, noise and regularisers
    double lambda_ssim = 0.2;
    double extent = 1;  // the scene's extent: the mean learning rate and ADC's scales are relative to it
    std::uint64_t seed = 0;
    bool balance_views = true;    // deal views by measured cost (else round robin)
    std::string backend = "cpu";  // the stages each rank runs: "cpu" or "cuda" (the rank's current GPU)
    // "cuda": choose the tile edge by timing both on the run (TileTuner), from the ranks' summed step times
    // so that every rank takes the same edge (a record's tiles are decided where it is projected).
    bool auto_tile_size = false;
    long checkpoint_every = 0;  // also write scene.ply every this many steps (0: only at the end)
    std::string output;         // folder of scene.ply; empty: nothing written
    // Called on rank 0 after each scene.ply written before the end, with the step and the merged scene.
    std::function<void(long, const Scene&)> after_checkpoint;
    // Called on rank 0, when set, with the whole run's state at each checkpoint, when stopped and at the
    // end: its step, the merged parameters, moments and statistics, their ids and the view order
    // (view_rng, view_order, view_cursor); ranks = the communicator's size. The callee may take from it.
    std::function<void(Checkpoint&)> save;
    // A run to continue from the state `save` gave: this rank's part of it (part_of), each rank its own.
    // The run goes on after its step, on any number of ranks.
    const Checkpoint* resume = nullptr;
    // Called on every rank after each step with the step, its batch loss and the scene's Gaussian count.
    std::function<void(long step, double loss, std::size_t gaussians)> on_step;
    // Polled on every rank as each step starts: when any rank's returns true, every rank stops after that
    // step (the ranks agree through the step's all-reduce) and the scene so far is merged and written.
    std::function<bool()> stop;
};

struct ParallelTrainResult {
    Scene scene;                           // merged, in id order, on every rank
    std::vector<double> losses;            // each step's batch loss (of this call: after a resumed step)
    std::vector<std::size_t> share_sizes;  // each rank's Gaussians at the end
    std::vector<std::size_t> peak_bytes;   // each rank's peak device memory (GPU stages; 0 on the CPU)
    bool stopped = false;                  // `stop` ended the run before config.steps
    BatchStepResult::Phases seconds;       // this rank's phases of every step, summed
    double densify_seconds = 0;            // this rank's densification (ADC, resets; MCMC: with the noise),
                                           // the share's trips off the GPU and back included
    std::string tiles;                     // the tile edges auto_tile_size chose (TileTuner::summary)
};

// Rank `rank`'s part of a whole saved state when `ranks` ranks continue it: its share (dealt as the run's
// start deals one: equal runs of the Morton order) with the moments and statistics, and every other field.
Checkpoint part_of(const Checkpoint& whole, int rank, int ranks);

// views: the dataset's views with their targets (every rank holds the list; a rank reads only the targets of
// the views it renders; views[i].image == i). Every rank calls it with the same arguments.
ParallelTrainResult train_gaussian_parallel(Communicator& comm, const Scene& initial,
                                            const std::vector<BatchView>& views,
                                            const ParallelTrainConfig& config);

}  // namespace radiant::distributed
