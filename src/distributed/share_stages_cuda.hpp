#pragma once
// The GPU stages' factory (cuda_share_stages.cpp, CUDA builds; layer-private).
#include <memory>
#include <vector>

#include "radiant/distributed/share_stages.hpp"

namespace radiant::distributed {

std::unique_ptr<ShareStages> make_cuda_share_stages(const std::vector<BatchView>& views);

}  // namespace radiant::distributed
