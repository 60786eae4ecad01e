#include <fmt/format.h>

#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/train/backend.hpp"
#if RADIANT_HAS_CUDA
#include "radiant/render/cuda/cuda_check.hpp"
#endif

namespace radiant {

std::unique_ptr<Backend> make_cpu_backend();
#if RADIANT_HAS_CUDA
std::unique_ptr<Backend> make_cuda_backend();
#endif

std::unique_ptr<Backend> make_backend(const std::string& name) {
    if (name == "cpu") return make_cpu_backend();
    if (name == "cuda") {
#if RADIANT_HAS_CUDA
        if (!cuda::device_available())
            throw Error("--backend cuda: no usable CUDA device found (use --backend cpu or auto)");
        return make_cuda_backend();
#else
        throw Error(
            "--backend cuda: radiant was built without CUDA (rebuild with nvcc, or use --backend cpu)");
#endif
    }
    if (name == "auto") {
#if RADIANT_HAS_CUDA
        if (cuda::device_available()) {
            log_info("backend: cuda ({})", cuda::device_name());
            return make_cuda_backend();
        }
        log_info("backend: cpu (no CUDA device found)");
#else
        log_info("backend: cpu (built without CUDA)");
#endif
        return make_cpu_backend();
    }
    throw Error(fmt::format("unknown backend '{}' (expected auto, cpu or cuda)", name));
}

}  // namespace radiant
