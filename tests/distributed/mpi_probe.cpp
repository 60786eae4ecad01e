// Run under `mpirun -n N`: rank 0 draws a block the size of an NCCL id, MpiSession broadcasts it, then every
// rank broadcasts a checksum of what it holds in turn, so each can tell whether all hold rank 0's bytes.
// Exit status 0 when they do (rank 0 prints "N ranks agree"), 1 when not, 2 when MPI could not start.
#include <array>
#include <cstdint>
#include <cstdio>
#include <random>

#include "radiant/distributed/mpi_session.hpp"

int main() {
    try {
        const auto mpi = radiant::distributed::MpiSession::start();
        std::array<unsigned char, 128> id{};
        if (mpi->rank() == 0) {
            std::mt19937_64 rng(std::random_device{}());
            for (unsigned char& b : id) b = static_cast<unsigned char>(rng());
        }
        mpi->broadcast(id.data(), id.size(), 0);
        std::uint64_t mine = 1469598103934665603ull;  // FNV-1a
        for (unsigned char b : id) mine = (mine ^ b) * 1099511628211ull;
        bool same = true;
        for (int r = 0; r < mpi->size(); ++r) {
            // What a rank holds before rank r's checksum arrives differs from its own: a broadcast that
            // delivers nothing fails.
            std::uint64_t theirs = mpi->rank() == r ? mine : ~mine;
            mpi->broadcast(&theirs, sizeof theirs, r);
            same = same && theirs == mine;
        }
        if (mpi->rank() == 0 && same) std::printf("mpi probe: %d ranks agree on rank 0's id\n", mpi->size());
        if (!same) std::printf("mpi probe: rank %d holds other bytes than a rank before it\n", mpi->rank());
        return same ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mpi probe: %s\n", e.what());
        return 2;
    }
}
