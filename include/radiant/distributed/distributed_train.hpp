#pragma once
// A training run over ranks, one GPU each (issue 25): `radiant train --gpus N` starts one process per GPU
// (launch_ranks) and `mpirun -n N radiant train …` has mpirun start them; either way every process joins
// the ranks (join_ranks) and runs train_distributed, the Gaussian-parallel loop on the GPU stages.
#include <functional>
#include <memory>
#include <string>

#include "radiant/distributed/communicator.hpp"
#include "radiant/distributed/launch.hpp"
#include "radiant/distributed/parallel_training.hpp"
#include "radiant/train/checkpoint.hpp"
#include "radiant/train/config.hpp"
#include "radiant/train/trainer.hpp"

namespace radiant::distributed {

// This process's rank among the others: NCCL between the ranks' GPUs (loaded at run time, NVLink multicast
// off), the GPU place.local. Rank 0's NCCL id reaches the others through Open MPI's broadcast when mpirun
// started the ranks, else through a file in `dir` named for `run` (a token the same on every rank of the
// run, different from any other run's). Throws Error saying what is missing: a build without CUDA, no GPU,
// no NCCL, no Open MPI under mpirun.
std::unique_ptr<Communicator> join_ranks(const RankPlace& place, const std::string& dir,
                                         const std::string& run);

// The run's settings as the Gaussian-parallel loop takes them: each step renders one view per rank (a batch
// of N views), so N ranks take 1/N of the steps — the same number of images — with the densification,
// reset and SH schedules compressed alike and the learning rates × √N (gsplat's distributed recipe), and
// ADC's gradient threshold ÷ N, as a view's gradient weighs 1/N in the batch's mean. Throws Error for what
// the loop does not do yet (pose refinement, appearance, resolution schedules, visible Adam, random
// backgrounds, exports).
ParallelTrainConfig parallel_config(const TrainConfig& config, int ranks, double extent);

// Trains on this rank; every rank calls it with the same settings. Rank 0 writes OUT/scene.ply (merged),
// and OUT/checkpoint.bin (the whole run's state, to continue it with resume_distributed) at every checkpoint,
// when stopped and at the end, then config.json, metrics.json and eval.json (the test views scored on its
// GPU), and returns the run's result; the others return their figures. `stop` (polled after each step,
// agreed over the ranks) ends the run early with the scene so far written. `resume`: this rank's part
// (part_of) of the checkpoint of the run in config.output, to continue it (resume_distributed).
TrainResult train_distributed(const TrainConfig& config, Communicator& comm,
                              const std::function<bool()>& stop = {}, const Checkpoint* resume = nullptr);

// Continues the Gaussian-parallel run in `run_dir` from its checkpoint.bin on as many ranks as wrote it:
// rank 0 reads the file and sends each rank its part (mpirun's ranks may share no folder), and the run goes
// on as train_distributed. Every rank calls it.
TrainResult resume_distributed(const std::string& run_dir, const ResumeChanges& changes, Communicator& comm,
                               const std::function<bool()>& stop = {});

}  // namespace radiant::distributed
