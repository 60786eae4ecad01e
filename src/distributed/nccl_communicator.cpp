#include "radiant/distributed/nccl_communicator.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "radiant/core/error.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#include "radiant/render/cuda/device_buffer.hpp"

namespace radiant::distributed {

struct NcclCommunicator::Impl {
    std::shared_ptr<const NcclLibrary> nccl;
    NcclLibrary::Comm comm = nullptr;
    cudaStream_t stream = nullptr;
    int rank = 0, size = 1;
    // Staging for the exchanges; they keep their largest size (a step's exchanges are alike).
    cuda::DeviceBuffer<std::byte> send, recv;

    // One grouped round of sends and receives: send_counts[d] bytes at send_at[d] to rank d, recv_counts[s]
    // bytes from rank s into recv_at[s] (device pointers; zero counts skipped on both sides alike).
    void exchange(const std::vector<std::size_t>& send_counts, const std::vector<const std::byte*>& send_at,
                  const std::vector<std::size_t>& recv_counts, const std::vector<std::byte*>& recv_at) {
        nccl->check(nccl->group_start(), "ncclGroupStart");
        for (int d = 0; d < size; ++d) {
            if (send_counts[std::size_t(d)] > 0)
                nccl->check(nccl->send(send_at[std::size_t(d)], send_counts[std::size_t(d)],
                                       NcclLibrary::kUint8, d, comm, stream),
                            "ncclSend");
            if (recv_counts[std::size_t(d)] > 0)
                nccl->check(nccl->recv(recv_at[std::size_t(d)], recv_counts[std::size_t(d)],
                                       NcclLibrary::kUint8, d, comm, stream),
                            "ncclRecv");
        }
        nccl->check(nccl->group_end(), "ncclGroupEnd");
    }
};

NcclCommunicator::NcclCommunicator(std::shared_ptr<const NcclLibrary> nccl, const NcclUniqueId& id, int rank,
                                   int size, int device)
    : impl_(std::make_unique<Impl>()) {
    RADIANT_CHECK(size >= 1 && rank >= 0 && rank < size,
                  fmt::format("NCCL communicator: rank {} of {} ranks", rank, size));
    Impl& d = *impl_;
    d.nccl = std::move(nccl);
    d.rank = rank;
    d.size = size;
    RADIANT_CUDA_CHECK(cudaSetDevice(device));
    RADIANT_CUDA_CHECK(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking));
    d.nccl->check(d.nccl->comm_init_rank(&d.comm, size, id, rank), "ncclCommInitRank");
}

NcclCommunicator::~NcclCommunicator() {
    if (impl_->comm) impl_->nccl->comm_destroy(impl_->comm);
    if (impl_->stream) cudaStreamDestroy(impl_->stream);
}

int NcclCommunicator::rank() const {
    return impl_->rank;
}

int NcclCommunicator::size() const {
    return impl_->size;
}

std::vector<Bytes> NcclCommunicator::all_to_all(std::vector<Bytes> send) {
    Impl& d = *impl_;
    const std::size_t ranks = std::size_t(d.size);
    RADIANT_CHECK(send.size() == ranks,
                  fmt::format("all_to_all: {} buffers for {} ranks", send.size(), ranks));
    // The sizes first: each rank sends every other the length of what follows.
    std::vector<std::uint64_t> out_sizes(ranks), in_sizes(ranks);
    for (std::size_t r = 0; r < ranks; ++r) out_sizes[r] = send[r].size();
    const std::size_t word = sizeof(std::uint64_t);
    d.send.resize_discard(2 * ranks * word);
    std::byte* sizes = d.send.data();
    RADIANT_CUDA_CHECK(
        cudaMemcpyAsync(sizes, out_sizes.data(), ranks * word, cudaMemcpyHostToDevice, d.stream));
    std::vector<std::size_t> counts(ranks, word);
    std::vector<const std::byte*> send_at(ranks);
    std::vector<std::byte*> recv_at(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
        send_at[r] = sizes + r * word;
        recv_at[r] = sizes + (ranks + r) * word;
    }
    d.exchange(counts, send_at, counts, recv_at);
    RADIANT_CUDA_CHECK(cudaMemcpyAsync(in_sizes.data(), sizes + ranks * word, ranks * word,
                                       cudaMemcpyDeviceToHost, d.stream));
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));

    // Then the bytes, laid end to end on each side.
    std::vector<std::size_t> out_counts(ranks), in_counts(ranks);
    std::size_t out_total = 0, in_total = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
        out_counts[r] = std::size_t(out_sizes[r]);
        in_counts[r] = std::size_t(in_sizes[r]);
        out_total += out_counts[r];
        in_total += in_counts[r];
    }
    d.send.resize_discard(out_total);
    d.recv.resize_discard(in_total);
    std::byte* out = d.send.data();
    std::byte* in = d.recv.data();
    std::size_t at = 0, from = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
        if (out_counts[r] > 0)
            RADIANT_CUDA_CHECK(
                cudaMemcpyAsync(out + at, send[r].data(), out_counts[r], cudaMemcpyHostToDevice, d.stream));
        send_at[r] = out + at;
        recv_at[r] = in + from;
        at += out_counts[r];
        from += in_counts[r];
    }
    d.exchange(out_counts, send_at, in_counts, recv_at);
    std::vector<Bytes> received(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
        received[r].resize(in_counts[r]);
        if (in_counts[r] > 0)
            RADIANT_CUDA_CHECK(cudaMemcpyAsync(received[r].data(), recv_at[r], in_counts[r],
                                               cudaMemcpyDeviceToHost, d.stream));
    }
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
    return received;
}

void NcclCommunicator::exchange(const std::vector<std::vector<Segment>>& send,
                                const std::vector<std::vector<Segment>>& recv, const BufferSpace& space) {
    if (!space.device()) {
        Communicator::exchange(send, recv, space);
        return;
    }
    Impl& d = *impl_;
    const std::size_t ranks = std::size_t(d.size);
    RADIANT_CHECK(
        send.size() == ranks && recv.size() == ranks,
        fmt::format("exchange: segments for {} and {} ranks of {}", send.size(), recv.size(), ranks));
    // One grouped round: NCCL matches a pair of ranks' sends and receives in the order they were posted,
    // and both sides skip the same empty segments (their sizes were agreed).
    d.nccl->check(d.nccl->group_start(), "ncclGroupStart");
    for (std::size_t r = 0; r < ranks; ++r) {
        for (const Segment& s : send[r])
            if (s.size > 0)
                d.nccl->check(d.nccl->send(s.data, s.size, NcclLibrary::kUint8, int(r), d.comm, d.stream),
                              "ncclSend");
        for (const Segment& s : recv[r])
            if (s.size > 0)
                d.nccl->check(d.nccl->recv(s.data, s.size, NcclLibrary::kUint8, int(r), d.comm, d.stream),
                              "ncclRecv");
    }
    d.nccl->check(d.nccl->group_end(), "ncclGroupEnd");
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
}

void NcclCommunicator::all_reduce_sum(std::vector<double>& values) {
    Bytes mine(values.size() * sizeof(double));
    if (!values.empty()) std::memcpy(mine.data(), values.data(), mine.size());
    const std::vector<Bytes> all = all_to_all(std::vector<Bytes>(std::size_t(size()), mine));
    std::vector<double> sum(values.size(), 0.0), part(values.size());
    for (const Bytes& b : all) {  // in rank order
        RADIANT_CHECK(
            b.size() == mine.size(),
            fmt::format("all_reduce_sum: a rank sent {} bytes, this one {}", b.size(), mine.size()));
        if (!part.empty()) std::memcpy(part.data(), b.data(), b.size());
        for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += part[i];
    }
    values = std::move(sum);
}

}  // namespace radiant::distributed
