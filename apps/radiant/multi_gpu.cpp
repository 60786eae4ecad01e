#include "multi_gpu.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>

#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/distributed/distributed_train.hpp"
#include "radiant/distributed/launch.hpp"

namespace radiant::app {
namespace {

// The token naming this run's NCCL id file, from the launcher (mpirun's ranks share the id over MPI).
std::string run_token(const distributed::RankPlace& place) {
    if (place.source == "mpirun") return {};
    const char* token = std::getenv("RADIANT_RUN_ID");
    if (token != nullptr && *token != '\0') return token;
    throw Error(
        fmt::format("rank {} of {} finds no RADIANT_RUN_ID (the variable `radiant train --gpus` gives "
                    "the ranks it starts)",
                    place.rank, place.world));
}

}  // namespace

bool trains_on_ranks(int gpus) {
    // A plain run inside a one-process mpirun job stays a plain run.
    const distributed::RankPlace place = distributed::rank_place();
    return gpus > 0 || place.source == "radiant" || (place.source == "mpirun" && place.world > 1);
}

bool starts_ranks() {
    return distributed::rank_place().source.empty();
}

namespace {

// The launcher's part: N copies of this command line, one per GPU, waited for.
void start_ranks(int gpus, const std::vector<std::string>& command_line, const std::string& output) {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    std::vector<std::string> argv = command_line;
    if (!ec) argv.front() = self.string();
    const auto now = std::chrono::system_clock::now().time_since_epoch().count();
    const std::string token = fmt::format("{}-{}", ::getpid(), now);
    log_info("starting {} ranks, one a GPU", gpus);
    // On Ctrl-C the ranks finish their step, merge the scene and rank 0 writes it and the checkpoint: minutes
    // for tens of millions of Gaussians, so they are given that long before they are killed.
    const distributed::LaunchResult r = distributed::launch_ranks(
        gpus, argv, {{"RADIANT_RUN_ID", token}}, [] { return interrupt_requested(); },
        std::chrono::minutes(5));
    if (r.failed_rank >= 0)
        throw Error(
            fmt::format("rank {} of {} failed ({}); the others were stopped", r.failed_rank, gpus, r.what));
    if (r.stopped)
        throw Error(
            fmt::format("stopped before the end; {} holds the scene so far (continue with --resume {} "
                        "--gpus {})",
                        output, output, gpus));
}

// A rank's part: join the others, then train (or continue) with `run`.
TrainResult on_rank(const distributed::RankPlace& place, int gpus, const std::string& output,
                    const std::function<TrainResult(distributed::Communicator&)>& run) {
    if (gpus > 0 && gpus != place.world)
        throw Error(fmt::format("--gpus {} but {} started {} ranks", gpus, place.source, place.world));
    // Rank 0 tells the run's progress; the others speak only of trouble.
    if (place.rank != 0) set_log_level(LogLevel::warn);
    const std::unique_ptr<distributed::Communicator> comm =
        distributed::join_ranks(place, output, run_token(place));
    TrainResult r = run(*comm);
    if (r.interrupted)
        throw Error(fmt::format(
            "stopped at step {} before the end; {} holds the scene so far (continue with "
            "--resume {}{})",
            r.steps, output, output,
            place.source == "mpirun" ? " under the same mpirun" : fmt::format(" --gpus {}", place.world)));
    if (place.rank != 0) r.outputs.clear();
    return r;
}

}  // namespace

TrainResult train_on_ranks(const TrainConfig& c, int gpus, const std::vector<std::string>& command_line) {
    const distributed::RankPlace place = distributed::rank_place();
    if (place.source.empty()) {
        // The launcher: what would stop every rank is refused here, once, before any starts.
        RADIANT_CHECK(gpus >= 1, "--gpus needs at least one GPU");
        refuse_to_replace_a_run(c.output, c.overwrite);
        (void)distributed::parallel_config(c, gpus, 1.0);
        start_ranks(gpus, command_line, c.output);
        return {};
    }
    return on_rank(place, gpus, c.output, [&](distributed::Communicator& comm) {
        return distributed::train_distributed(c, comm, [] { return interrupt_requested(); });
    });
}

TrainResult resume_on_ranks(const std::string& run_dir, const ResumeChanges& changes, int gpus,
                            const std::vector<std::string>& command_line) {
    const distributed::RankPlace place = distributed::rank_place();
    if (place.source.empty()) {
        RADIANT_CHECK(gpus >= 1, "--gpus needs at least one GPU");
        (void)checkpoint_to_resume(run_dir);  // refused here, once, before any rank starts
        start_ranks(gpus, command_line, run_dir);
        return {};
    }
    return on_rank(place, gpus, run_dir, [&](distributed::Communicator& comm) {
        return distributed::resume_distributed(run_dir, changes, comm, [] { return interrupt_requested(); });
    });
}

}  // namespace radiant::app
