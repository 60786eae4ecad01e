#pragma once
// A mask like the ones training meets: a disc (a masked object) and border strips (an undistortion border).
#include "radiant/core/image.hpp"

namespace radiant::test {

inline Image<std::uint8_t> disc_and_border_mask(int w, int h) {
    Image<std::uint8_t> m(w, h, 1, kMaskValid);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double dx = x - 0.6 * w, dy = y - 0.4 * h;
            if (dx * dx + dy * dy < 0.04 * w * h || x < 3 || y >= h - 2) m.at(x, y) = kMaskInvalid;
        }
    return m;
}

}  // namespace radiant::test
