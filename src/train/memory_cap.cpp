#include "radiant/train/memory_cap.hpp"

#include <algorithm>

namespace radiant {

void MemoryCap::observe(const MemoryUse& memory, std::size_t gaussians, bool densified) {
    memory_ = memory;
    largest_ = std::max(largest_, gaussians);
    densified_ = densified_ || densified;
}

std::size_t MemoryCap::max_gaussians() const {
    if (memory_.budget == 0 || largest_ == 0) return 0;
    if (memory_.budget <= memory_.images) return 1;
    const double used = double(memory_.peak > memory_.images ? memory_.peak - memory_.images : 0);
    const double per_gaussian = std::max(used / double(largest_), 1.0) * (densified_ ? 1.0 : 2.0);
    return std::max<std::size_t>(1,
                                 std::size_t(0.9 * double(memory_.budget - memory_.images) / per_gaussian));
}

}  // namespace radiant
