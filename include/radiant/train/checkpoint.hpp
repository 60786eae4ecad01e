#pragma once
// Checkpoints: everything needed to continue a run bit for bit — parameters, Adam moments and step,
// densification statistics, the random generators, the view order and the history. Written atomically.
#include <string>
#include <string_view>
#include <vector>

#include "radiant/train/backend.hpp"
#include "radiant/train/pose_opt.hpp"

namespace radiant {

struct HistoryPoint {
    long step = 0;
    double loss = 0, psnr = 0;  // running means over the last log period
    std::size_t gaussians = 0;
    double seconds = 0;
};

struct EvalPoint {
    long step = 0;
    double psnr = 0, ssim = 0;
};

struct Checkpoint {
    std::string config_json;  // the run's settings, for --resume
    long step = 0;            // steps completed
    TrainState state;
    std::string view_rng, background_rng, densify_rng;  // std::mt19937_64 states, as text
    std::vector<std::int32_t> view_order;
    std::size_t view_cursor = 0;
    std::vector<HistoryPoint> history;
    std::vector<EvalPoint> evals;
    double seconds = 0;  // training time so far
    PoseState poses;     // per-image pose corrections (pose refinement off: none)
    // A Gaussian-parallel run's (radiant train --gpus N, mpirun): its rank count (0: a run on one process,
    // whose step counts images, where theirs counts batches of `ranks` views) and each Gaussian's global id,
    // which keys its random draws. The state is the whole scene merged in id order (distributed::part_of
    // makes one rank's part of it).
    int ranks = 0;
    std::vector<std::uint64_t> ids;
};

void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);
// The bytes write_checkpoint writes.
std::string checkpoint_bytes(const Checkpoint& checkpoint);
Checkpoint read_checkpoint(const std::string& path);
// A checkpoint from its bytes (as read from `name`, which errors name).
Checkpoint parse_checkpoint(std::string_view bytes, const std::string& name);

}  // namespace radiant
