#include "radiant/distributed/share_stages.hpp"

#include "radiant/core/error.hpp"
#if RADIANT_HAS_CUDA
#include "share_stages_cuda.hpp"
#endif

namespace radiant::distributed {

std::unique_ptr<ShareStages> make_share_stages(const std::string& backend,
                                               const std::vector<BatchView>& views) {
    if (backend == "cpu") return make_cpu_share_stages();
    RADIANT_CHECK(backend == "cuda",
                  "Gaussian-parallel training: the backend is cpu or cuda, not '" + backend + "'");
#if RADIANT_HAS_CUDA
    return make_cuda_share_stages(views);
#else
    (void)views;
    throw Error("Gaussian-parallel training on GPUs needs a build with the CUDA backend (this one has none)");
#endif
}

}  // namespace radiant::distributed
