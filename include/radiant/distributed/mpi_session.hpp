#pragma once
// Open MPI starts a multi-machine run's processes (`mpirun -n N radiant train …`) and hands rank 0's NCCL id
// to the others (MPI_Bcast), so the ranks need no folder they all see. Open MPI is loaded at run time
// (libmpi.so.40, Debian's openmpi-bin), as NCCL is: a radiant without it does everything else. Only
// MPI_Init, MPI_Comm_rank/size, MPI_Bcast and MPI_Finalize are used, with MPI_COMM_WORLD and MPI_BYTE as Open
// MPI's ABI spells them (the addresses of ompi_mpi_comm_world and ompi_mpi_byte).
#include <cstddef>
#include <memory>
#include <string>

namespace radiant::distributed {

class MpiSession {
  public:
    // Loads Open MPI (RADIANT_MPI names another libmpi) and initialises it unless the process already has;
    // throws Error saying what is missing or failed.
    static std::unique_ptr<MpiSession> start();
    ~MpiSession();  // MPI_Finalize, when this session initialised MPI
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }
    const std::string& path() const { return path_; }
    // `bytes` of rank `root` to every rank of MPI_COMM_WORLD (every rank calls it alike).
    void broadcast(void* bytes, std::size_t size, int root) const;

  private:
    MpiSession() = default;
    struct Calls;
    std::unique_ptr<Calls> calls_;
    void* handle_ = nullptr;
    std::string path_;
    int rank_ = 0, size_ = 1;
    bool finalize_ = false;
};

}  // namespace radiant::distributed
