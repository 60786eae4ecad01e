#pragma once
// What Gaussian-parallel training needs from the ranks it runs on (issue 25): an all-to-all of byte buffers
// and a sum over ranks. NCCL provides both across GPUs; InProcessGroup provides them across threads, so the
// partitioned algorithm runs on the CPU backend and tests can check it against one rank.
#include <cstddef>
#include <functional>
#include <vector>

namespace radiant::distributed {

using Bytes = std::vector<std::byte>;

class Communicator {
  public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // Sends send[d] to rank d (send.size() == size()); returns what each rank sent to this one, by source.
    virtual std::vector<Bytes> all_to_all(std::vector<Bytes> send) = 0;
    // Element-wise sum over the ranks, added in rank order so that every rank gets the same bits.
    virtual void all_reduce_sum(std::vector<double>& values) = 0;
};

// Runs body(communicator) on `ranks` threads, one communicator each, and waits for all of them. When one
// rank throws, the others stop at their next collective instead of waiting forever, and the first error is
// rethrown here.
void run_in_process(int ranks, const std::function<void(Communicator&)>& body);

}  // namespace radiant::distributed
