#include "radiant/distributed/nccl_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>

#include "radiant/core/error.hpp"

namespace radiant::distributed {
namespace {

namespace fs = std::filesystem;

// site-packages and dist-packages folders under `prefix`/lib/python3.*.
void python_package_dirs(const fs::path& prefix, std::vector<std::string>& out) {
    std::error_code ec;
    const fs::path lib = prefix / "lib";
    if (!fs::is_directory(lib, ec)) return;
    for (const auto& entry : fs::directory_iterator(lib, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("python3", 0) != 0) continue;
        for (const char* packages : {"site-packages", "dist-packages"}) {
            const fs::path nccl = entry.path() / packages / "nvidia" / "nccl" / "lib" / "libnccl.so.2";
            if (fs::exists(nccl, ec)) out.push_back(nccl.string());
        }
    }
}

// The folder above bin/ of the first python3 on PATH (a virtual environment's or the system's).
fs::path python_prefix() {
    const char* path = std::getenv("PATH");
    if (path == nullptr) return {};
    std::stringstream dirs(path);
    std::string dir;
    std::error_code ec;
    while (std::getline(dirs, dir, ':')) {
        const fs::path python = fs::path(dir) / "python3";
        if (!dir.empty() && fs::exists(python, ec)) return fs::path(dir).parent_path();
    }
    return {};
}

template <class F>
void resolve(void* handle, const std::string& path, const char* name, F& out) {
    void* symbol = dlsym(handle, name);
    if (symbol == nullptr) throw Error(fmt::format("{} is not NCCL 2: it has no {}", path, name));
    out = reinterpret_cast<F>(symbol);
}

}  // namespace

std::vector<std::string> NcclLibrary::candidates() {
    std::vector<std::string> out;
    if (const char* given = std::getenv("RADIANT_NCCL"); given != nullptr && *given != '\0')
        out.push_back(given);
    out.push_back("libnccl.so.2");  // LD_LIBRARY_PATH, the cache of ldconfig, the system's folders
    if (const fs::path p = python_prefix(); !p.empty()) python_package_dirs(p, out);
    if (const char* venv = std::getenv("VIRTUAL_ENV"); venv != nullptr && *venv != '\0')
        python_package_dirs(venv, out);
    if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
        python_package_dirs(fs::path(home) / ".local", out);
    python_package_dirs("/usr/local", out);
    python_package_dirs("/usr", out);
    return out;
}

std::shared_ptr<const NcclLibrary> NcclLibrary::load() {
    // One library per process: NCCL keeps process-wide state, and loading it twice would duplicate it.
    static std::mutex mutex;
    static std::weak_ptr<const NcclLibrary> loaded;
    std::lock_guard lock(mutex);
    if (auto existing = loaded.lock()) return existing;
    auto lib = load_from(candidates());
    loaded = lib;
    return lib;
}

std::shared_ptr<const NcclLibrary> NcclLibrary::load_from(const std::vector<std::string>& paths) {
    std::string tried;
    for (const std::string& path : paths) {
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            tried += fmt::format("\n  {}: {}", path, dlerror());
            continue;
        }
        std::shared_ptr<NcclLibrary> lib(new NcclLibrary);
        lib->handle_ = handle;
        lib->path_ = path;
        Result (*get_version)(int*) = nullptr;
        resolve(handle, path, "ncclGetVersion", get_version);
        resolve(handle, path, "ncclGetUniqueId", lib->get_unique_id);
        resolve(handle, path, "ncclCommInitRank", lib->comm_init_rank);
        resolve(handle, path, "ncclCommDestroy", lib->comm_destroy);
        resolve(handle, path, "ncclAllReduce", lib->all_reduce);
        resolve(handle, path, "ncclSend", lib->send);
        resolve(handle, path, "ncclRecv", lib->recv);
        resolve(handle, path, "ncclGroupStart", lib->group_start);
        resolve(handle, path, "ncclGroupEnd", lib->group_end);
        resolve(handle, path, "ncclGetErrorString", lib->error_string);
        lib->check(get_version(&lib->version_), "ncclGetVersion");
        // NVLink multicast (NVLS) stays off unless the user sets it: issue 25 asks for it off on the
        // machines radiant is measured on.
        setenv("NCCL_NVLS_ENABLE", "0", 0);
        return lib;
    }
    throw Error(fmt::format(
        "multi-GPU training needs NCCL's libnccl.so.2, which was not found:{}\n"
        "NCCL is not packaged by Debian. Install it from NVIDIA's CUDA repository (libnccl2), or use the one "
        "PyTorch brings (pip install nvidia-nccl-cu12), or name the file with "
        "RADIANT_NCCL=/path/to/libnccl.so.2",
        tried));
}

void NcclLibrary::check(Result r, const char* call) const {
    if (r != 0) throw Error(fmt::format("NCCL's {} failed: {} (error {})", call, error_string(r), r));
}

NcclLibrary::~NcclLibrary() {
    if (handle_ != nullptr) dlclose(handle_);
}

}  // namespace radiant::distributed
