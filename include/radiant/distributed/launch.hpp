#pragma once
// Starting the processes of a multi-GPU run and telling each its place (issue 25). `radiant train --gpus N`
// starts one process per GPU with launch_ranks; under Open MPI (`mpirun -n N radiant train …`) mpirun starts
// them. Either way each process reads its rank with rank_place; the ranks radiant started meet on one NCCL id
// through share_nccl_id, mpirun's through Open MPI's broadcast (mpi_session.hpp).
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "radiant/distributed/nccl_library.hpp"

namespace radiant::distributed {

struct RankPlace {
    int rank = 0, world = 1, local = 0;  // local: the rank among those on this host (its GPU)
    std::string source;                  // "radiant" (launch_ranks), "mpirun" (Open MPI), or "" (one process)
};

// From radiant's variables (RADIANT_RANK, RADIANT_WORLD_SIZE, RADIANT_LOCAL_RANK) or else Open MPI's
// (OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK); neither: one process. Throws Error naming the variable that is
// missing, not a number or out of range. `env` looks a variable up (std::getenv by default).
RankPlace rank_place(const std::function<const char*(const char*)>& env = {});

struct LaunchResult {
    int failed_rank = -1;  // the first rank that failed, -1 when all succeeded
    std::string what;      // how it failed ("exit status 3", "killed by signal 9"), empty on success
    bool stopped = false;  // stop() asked the ranks to end before they did
};

// Runs `ranks` copies of argv (argv[0]: the program, looked up in PATH) with RADIANT_RANK, RADIANT_WORLD_SIZE
// and RADIANT_LOCAL_RANK set, and `env` added, and waits for all. When one fails, or `stop` (polled) returns
// true, the others are sent SIGTERM — radiant's runs then save a checkpoint — and SIGKILL after `grace`.
LaunchResult launch_ranks(int ranks, const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env = {},
                          const std::function<bool()>& stop = {},
                          std::chrono::milliseconds grace = std::chrono::seconds(30));

// The NCCL id of a run, through a file in `dir` (a folder every rank sees: the run's output) named for
// `run`, a token unique to the run, so an earlier run's file is never read: rank 0 writes `mine` whole
// (atomically); the others wait for the file up to `timeout` and read it. Throws Error naming the file when
// it does not come or holds something else. The file is the caller's to remove once every rank has joined.
NcclUniqueId share_nccl_id(const std::string& dir, const std::string& run, int rank, const NcclUniqueId& mine,
                           std::chrono::milliseconds timeout = std::chrono::minutes(2));

}  // namespace radiant::distributed
