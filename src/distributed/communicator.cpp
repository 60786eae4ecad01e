#include "radiant/distributed/communicator.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>

#include "radiant/core/error.hpp"
#include "wire.hpp"

namespace radiant::distributed {
namespace {

class HostSpace final : public BufferSpace {
  public:
    bool device() const override { return false; }
    void copy(void* to, const void* from, std::size_t bytes) const override {
        if (bytes > 0) std::memcpy(to, from, bytes);
    }
};

std::size_t total_size(const std::vector<Segment>& segments) {
    std::size_t n = 0;
    for (const Segment& s : segments) n += s.size;
    return n;
}

std::vector<std::uint64_t> nonempty_sizes(const std::vector<Segment>& segments) {
    std::vector<std::uint64_t> sizes;
    for (const Segment& s : segments)
        if (s.size > 0) sizes.push_back(s.size);
    return sizes;
}

}  // namespace

const BufferSpace& host_space() {
    static const HostSpace space;
    return space;
}

void Communicator::exchange(const std::vector<std::vector<Segment>>& send,
                            const std::vector<std::vector<Segment>>& recv, const BufferSpace& space) {
    const std::size_t ranks = std::size_t(size());
    RADIANT_CHECK(
        send.size() == ranks && recv.size() == ranks,
        fmt::format("exchange: segments for {} and {} ranks of {}", send.size(), recv.size(), ranks));
    // Each message leads with its segments' sizes, so that a receiver checks them as NCCL would need them
    // to match (one send to one receive of the same size, empty ones skipped): a mismatch here would hang
    // over NCCL.
    std::vector<Bytes> out(ranks);
    for (std::size_t d = 0; d < ranks; ++d) {
        const std::vector<std::uint64_t> sizes = nonempty_sizes(send[d]);
        Writer w(out[d]);
        w.put(std::uint64_t(sizes.size()));
        w.put(sizes.data(), sizes.size());
        std::size_t at = out[d].size();
        out[d].resize(at + total_size(send[d]));
        for (const Segment& s : send[d]) {
            space.copy(out[d].data() + at, s.data, s.size);
            at += s.size;
        }
    }
    const std::vector<Bytes> in = all_to_all(std::move(out));
    for (std::size_t s = 0; s < ranks; ++s) {
        Reader r(in[s]);
        std::vector<std::uint64_t> sizes(r.get<std::uint64_t>());
        r.get(sizes.data(), sizes.size());
        const std::vector<std::uint64_t> expected = nonempty_sizes(recv[s]);
        RADIANT_CHECK(sizes == expected,
                      fmt::format("exchange: rank {} sent segments of {} bytes where {} were "
                                  "agreed",
                                  s, fmt::join(sizes, "+"), fmt::join(expected, "+")));
        std::size_t at = in[s].size() - total_size(recv[s]);
        for (const Segment& seg : recv[s]) {
            space.copy(seg.data, in[s].data() + at, seg.size);
            at += seg.size;
        }
    }
}

}  // namespace radiant::distributed
