#pragma once
// NCCL, the engine every multi-GPU trainer in the field uses, is not packaged by Debian: radiant loads
// libnccl.so.2 at run time — the one named by RADIANT_NCCL, the system's, or the nvidia-nccl wheel's that
// PyTorch installs — and declares only the calls it makes. Their signatures are NCCL 2's (stable since 2.7).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace radiant::distributed {

struct NcclUniqueId {
    char internal[128];
};

class NcclLibrary {
  public:
    using Result = int;  // ncclResult_t: 0 is success
    using Comm = void*;  // ncclComm_t
    enum DataType : int { kUint8 = 1, kInt64 = 4, kUint64 = 5, kFloat32 = 7, kFloat64 = 8 };
    enum RedOp : int { kSum = 0 };

    // Loads it once per process; throws Error naming every place looked in and how to install it.
    static std::shared_ptr<const NcclLibrary> load();
    // The first of `paths` that loads (not shared with load()'s; for tests and tools).
    static std::shared_ptr<const NcclLibrary> load_from(const std::vector<std::string>& paths);
    // Where to look, in order (RADIANT_NCCL; the loader's own search for libnccl.so.2; the nvidia-nccl
    // wheel next to the python3 on PATH, in a virtual environment, or in the user's or system's packages).
    static std::vector<std::string> candidates();

    const std::string& path() const { return path_; }
    int version() const { return version_; }  // e.g. 22005 for 2.20.5

    // Throws Error with NCCL's own words for a failed call.
    void check(Result r, const char* call) const;

    Result (*get_unique_id)(NcclUniqueId*) = nullptr;
    Result (*comm_init_rank)(Comm*, int nranks, NcclUniqueId id, int rank) = nullptr;
    Result (*comm_destroy)(Comm) = nullptr;
    Result (*all_reduce)(const void* send, void* recv, std::size_t count, int type, int op, Comm,
                         void* stream) = nullptr;
    Result (*send)(const void* buf, std::size_t count, int type, int peer, Comm, void* stream) = nullptr;
    Result (*recv)(void* buf, std::size_t count, int type, int peer, Comm, void* stream) = nullptr;
    Result (*group_start)() = nullptr;
    Result (*group_end)() = nullptr;
    const char* (*error_string)(Result) = nullptr;

    NcclLibrary(const NcclLibrary&) = delete;
    NcclLibrary& operator=(const NcclLibrary&) = delete;
    ~NcclLibrary();

  private:
    NcclLibrary() = default;
    void* handle_ = nullptr;
    std::string path_;
    int version_ = 0;
};

}  // namespace radiant::distributed
