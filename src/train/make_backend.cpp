#include <fmt/format.h>

#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/train/backend.hpp"

namespace radiant {

std::unique_ptr<Backend> make_cpu_backend();

std::unique_ptr<Backend> make_backend(const std::string& name) {
    if (name == "cpu") return make_cpu_backend();
    if (name == "cuda")
        throw Error("the CUDA training backend is not implemented yet (issues 6 and 7); use --backend cpu");
    if (name == "auto") {
        log_info("backend: cpu (the CUDA training backend is not implemented yet)");
        return make_cpu_backend();
    }
    throw Error(fmt::format("unknown backend '{}' (expected auto, cpu or cuda)", name));
}

}  // namespace radiant
