#pragma once
// How many Gaussians a backend's memory budget holds (issue 9): learned from the run itself, so it covers
// what a scene's footprints cost in tile lists and not only the parameter arrays.
#include <cstddef>

#include "radiant/train/backend.hpp"

namespace radiant {

class MemoryCap {
  public:
    // After a step: the backend's memory and how many Gaussians it holds; `densified` once a densification
    // has run (it allocates the next arrays beside the current ones, which the peak then includes).
    void observe(const MemoryUse& memory, std::size_t gaussians, bool densified);
    // (budget − images) / bytes per Gaussian with a 10 % margin, bytes per Gaussian being (peak − images) /
    // the most Gaussians held so far — twice that until a densification has been seen. 0: no budget.
    std::size_t max_gaussians() const;

  private:
    MemoryUse memory_;
    std::size_t largest_ = 0;
    bool densified_ = false;
};

// The stricter of two caps where 0 means none.
inline std::size_t min_cap(std::size_t a, std::size_t b) {
    return a == 0 ? b : (b == 0 ? a : (a < b ? a : b));
}

}  // namespace radiant
