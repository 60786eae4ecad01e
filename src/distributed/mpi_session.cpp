#include "radiant/distributed/mpi_session.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <climits>
#include <cstdlib>

#include "radiant/core/error.hpp"

namespace radiant::distributed {

// The C signatures of the calls used; handles are pointers in Open MPI's ABI.
struct MpiSession::Calls {
    int (*init)(int*, char***) = nullptr;
    int (*initialized)(int*) = nullptr;
    int (*finalized)(int*) = nullptr;
    int (*finalize)() = nullptr;
    int (*comm_rank)(void*, int*) = nullptr;
    int (*comm_size)(void*, int*) = nullptr;
    int (*bcast)(void*, int, void*, int, void*) = nullptr;
    void* comm_world = nullptr;
    void* byte = nullptr;
};

namespace {

template <class F>
void resolve(void* handle, const std::string& path, const char* name, F& out) {
    void* symbol = dlsym(handle, name);
    if (symbol == nullptr)
        throw Error(fmt::format("{} is not Open MPI 4 or later: it has no {} (radiant uses Open MPI's ABI)",
                                path, name));
    out = reinterpret_cast<F>(symbol);
}

void check(int result, const char* call) {
    if (result != 0) throw Error(fmt::format("{} failed (MPI error {})", call, result));
}

}  // namespace

std::unique_ptr<MpiSession> MpiSession::start() {
    const char* given = std::getenv("RADIANT_MPI");
    const std::string path = given != nullptr && *given != '\0' ? given : "libmpi.so.40";
    // Global: Open MPI's components, loaded by it in turn, resolve their symbols against it.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr)
        throw Error(
            fmt::format("cannot load Open MPI ({}): {}; install it (apt install openmpi-bin) or "
                        "name its libmpi with RADIANT_MPI",
                        path, dlerror()));
    std::unique_ptr<MpiSession> s(new MpiSession);
    s->handle_ = handle;
    s->path_ = path;
    s->calls_ = std::make_unique<Calls>();
    Calls& c = *s->calls_;
    resolve(handle, path, "MPI_Init", c.init);
    resolve(handle, path, "MPI_Initialized", c.initialized);
    resolve(handle, path, "MPI_Finalized", c.finalized);
    resolve(handle, path, "MPI_Finalize", c.finalize);
    resolve(handle, path, "MPI_Comm_rank", c.comm_rank);
    resolve(handle, path, "MPI_Comm_size", c.comm_size);
    resolve(handle, path, "MPI_Bcast", c.bcast);
    resolve(handle, path, "ompi_mpi_comm_world", c.comm_world);
    resolve(handle, path, "ompi_mpi_byte", c.byte);
    int done = 0;
    check(c.initialized(&done), "MPI_Initialized");
    if (!done) {
        check(c.init(nullptr, nullptr), "MPI_Init");
        s->finalize_ = true;
    }
    check(c.comm_rank(c.comm_world, &s->rank_), "MPI_Comm_rank");
    check(c.comm_size(c.comm_world, &s->size_), "MPI_Comm_size");
    return s;
}

MpiSession::~MpiSession() {
    if (calls_ && finalize_) {
        int done = 0;
        if (calls_->finalized(&done) == 0 && !done) calls_->finalize();
    }
    // The library stays loaded: Open MPI's own threads and handlers may outlive MPI_Finalize.
}

void MpiSession::broadcast(void* bytes, std::size_t size, int root) const {
    RADIANT_CHECK(size <= std::size_t(INT_MAX), "MPI broadcast: more than 2 GiB at once");
    RADIANT_CHECK(root >= 0 && root < size_, fmt::format("MPI broadcast: root {} of {} ranks", root, size_));
    check(calls_->bcast(bytes, int(size), calls_->byte, root, calls_->comm_world), "MPI_Bcast");
}

}  // namespace radiant::distributed
