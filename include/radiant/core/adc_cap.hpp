#pragma once
// ADC under a size cap (--max-gaussians, the device-memory budget): which candidates densify when not all
// may. Host code shared by the CPU plan and the CUDA backend.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace radiant {

// The gradient threshold (≥ `threshold`) at which ADC leaves at most `max_size` Gaussians: the candidates
// with the largest mean gradients are kept, the rest wait. `actions` are adc_action's under `threshold`;
// returns `threshold` when they already fit, and a value above every candidate's gradient when nothing
// may be added (pruning still applies).
float adc_capped_threshold(const std::vector<float>& grad_accum, const std::vector<std::int32_t>& denom,
                           const std::vector<std::uint32_t>& actions, float threshold, std::size_t max_size);

}  // namespace radiant
