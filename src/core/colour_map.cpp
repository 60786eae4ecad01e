#include "radiant/core/colour_map.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace radiant {

std::array<double, 3> turbo(double x) {
    x = std::clamp(x, 0.0, 1.0);
    const double r =
        0.13572138 +
        x * (4.61539260 + x * (-42.66032258 + x * (132.13108234 + x * (-152.94239396 + x * 59.28637943))));
    const double g =
        0.09140261 +
        x * (2.19418839 + x * (4.84296658 + x * (-14.18503333 + x * (4.27729857 + x * 2.82956604))));
    const double b =
        0.10667330 +
        x * (12.64194608 + x * (-60.58204836 + x * (110.36276771 + x * (-89.90310912 + x * 27.34824973))));
    return {r, g, b};
}

Image<std::uint8_t> depth_picture(const Image<float>& depth, const Image<float>& alpha) {
    auto hit = [&](std::size_t i) { return alpha.data[i] > 0.5f && depth.data[i] > 0; };
    std::vector<float> hits;
    for (std::size_t i = 0; i < depth.data.size(); ++i)
        if (hit(i)) hits.push_back(depth.data[i]);
    Image<std::uint8_t> out(depth.width, depth.height, 3);
    if (hits.empty()) return out;
    std::sort(hits.begin(), hits.end());
    const double lo = hits[hits.size() / 100], hi = hits[hits.size() - 1 - hits.size() / 100];
    for (std::size_t i = 0; i < depth.data.size(); ++i) {
        if (!hit(i)) continue;
        const auto c = turbo(hi > lo ? (hi - depth.data[i]) / (hi - lo) : 1.0);
        for (std::size_t k = 0; k < 3; ++k)
            out.data[3 * i + k] = std::uint8_t(std::lround(255 * std::clamp(c[k], 0.0, 1.0)));
    }
    return out;
}

}  // namespace radiant
