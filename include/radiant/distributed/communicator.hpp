#pragma once
// What Gaussian-parallel training needs from the ranks it runs on (issue 25): an all-to-all of byte buffers
// (host buffers, or buffers in place where the stages keep them: a GPU's) and a sum over ranks. NCCL provides
// them across GPUs; InProcessGroup provides them across threads, so the partitioned algorithm runs on the CPU
// backend and tests can check it against one rank.
#include <cstddef>
#include <functional>
#include <vector>

namespace radiant::distributed {

using Bytes = std::vector<std::byte>;

// A stretch of an exchange's memory.
struct Segment {
    std::byte* data = nullptr;
    std::size_t size = 0;
};

// Where an exchange's buffers live, as a communicator must reach them: host memory, or the calling
// thread's GPU.
class BufferSpace {
  public:
    virtual ~BufferSpace() = default;
    virtual bool device() const = 0;
    // Copies between this space and host memory, either way; done when it returns.
    virtual void copy(void* to, const void* from, std::size_t bytes) const = 0;
};

// Host memory.
const BufferSpace& host_space();

class Communicator {
  public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // Sends send[d] to rank d (send.size() == size()); returns what each rank sent to this one, by source.
    virtual std::vector<Bytes> all_to_all(std::vector<Bytes> send) = 0;
    // Sends the segments send[d] to rank d and receives what rank s sends into the segments recv[s], in
    // place in `space`. The sizes are agreed beforehand: rank s's non-empty segments to this rank must be
    // the non-empty segments of recv[s], one for one (NCCL matches a send with a receive of its size). The
    // default goes through all_to_all on the host and checks that.
    virtual void exchange(const std::vector<std::vector<Segment>>& send,
                          const std::vector<std::vector<Segment>>& recv, const BufferSpace& space);
    // Element-wise sum over the ranks, added in rank order so that every rank gets the same bits.
    virtual void all_reduce_sum(std::vector<double>& values) = 0;
};

// Runs body(communicator) on `ranks` threads, one communicator each, and waits for all of them. When one
// rank throws, the others stop at their next collective instead of waiting forever, and the first error is
// rethrown here.
void run_in_process(int ranks, const std::function<void(Communicator&)>& body);

}  // namespace radiant::distributed
