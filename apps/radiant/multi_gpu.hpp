#pragma once
// `radiant train --gpus N` and the ranks of a multi-GPU run (issue 25).
#include <string>
#include <vector>

#include "radiant/train/config.hpp"
#include "radiant/train/trainer.hpp"

namespace radiant::app {

// Whether this invocation trains over ranks: --gpus given, or started as a rank (by --gpus or by mpirun).
bool trains_on_ranks(int gpus);
// Whether it is the launcher (--gpus in a process no launcher or mpirun started).
bool starts_ranks();

// The launcher (--gpus N in a plain process) starts N copies of this command line, one per GPU, and waits
// for them; a rank joins the others and trains its share. Returns rank 0's result on rank 0; elsewhere (the
// launcher, other ranks) a result with no outputs. Throws Error naming a rank that failed.
TrainResult train_on_ranks(const TrainConfig& config, int gpus, const std::vector<std::string>& command_line);
// The same for continuing the Gaussian-parallel run in `run_dir` from its checkpoint (radiant train
// --resume DIR --gpus N, or under mpirun).
TrainResult resume_on_ranks(const std::string& run_dir, const ResumeChanges& changes, int gpus,
                            const std::vector<std::string>& command_line);

}  // namespace radiant::app
