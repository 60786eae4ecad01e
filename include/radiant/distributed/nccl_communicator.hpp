#pragma once
// A Communicator over NCCL between processes, one GPU each (issue 25): the byte buffers of all_to_all go
// through the GPU with grouped ncclSend/ncclRecv (their sizes first); exchange sends buffers already on the
// GPU from where they are, with no copy; and all_reduce_sum gathers every rank's
// values and adds them on the host in rank order, as InProcessGroup does, so every rank — and a run on any
// number of ranks — gets the same bits. Built with the CUDA backend only.
#include <memory>

#include "radiant/distributed/communicator.hpp"
#include "radiant/distributed/nccl_library.hpp"

namespace radiant::distributed {

class NcclCommunicator final : public Communicator {
  public:
    // id: the same on every rank (rank 0's get_unique_id, handed to the others by whoever started them);
    // device: this process's GPU. Blocks until every rank has joined.
    NcclCommunicator(std::shared_ptr<const NcclLibrary> nccl, const NcclUniqueId& id, int rank, int size,
                     int device);
    ~NcclCommunicator() override;
    NcclCommunicator(const NcclCommunicator&) = delete;
    NcclCommunicator& operator=(const NcclCommunicator&) = delete;

    int rank() const override;
    int size() const override;
    std::vector<Bytes> all_to_all(std::vector<Bytes> send) override;
    void exchange(const std::vector<std::vector<Segment>>& send,
                  const std::vector<std::vector<Segment>>& recv, const BufferSpace& space) override;
    void all_reduce_sum(std::vector<double>& values) override;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace radiant::distributed
