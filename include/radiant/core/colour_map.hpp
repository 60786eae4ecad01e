#pragma once
// Pictures of values: depth as colours people read at a glance.
#include <array>
#include <cstdint>

#include "radiant/core/image.hpp"

namespace radiant {

// The turbo colour map (Google's polynomial fit) at x in [0, 1]: blue → green → yellow → red.
std::array<double, 3> turbo(double x);

// A depth render [H, W] as RGB: between the 1st and 99th percentile of the pixels hit (alpha > 0.5), near
// red, far blue; black where nothing was hit.
Image<std::uint8_t> depth_picture(const Image<float>& depth, const Image<float>& alpha);

}  // namespace radiant
