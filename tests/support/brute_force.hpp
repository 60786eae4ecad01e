#pragma once
// Brute-force reference raster: every pixel composites every visible Gaussian in (depth, id) order, with the
// same per-hit rules as the tiled raster. No tiles, no lists.
#include <algorithm>
#include <numeric>

#include "radiant/core/composite.hpp"
#include "radiant/render/forward.hpp"

namespace radiant::test {

template <class T>
Image<T> brute_force_rgb(const Projected<T>& pr, int width, int height, const RenderSettings& s) {
    std::vector<std::size_t> order;
    for (std::size_t g = 0; g < pr.size(); ++g)
        if (pr.visible(g)) order.push_back(g);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return float(pr.depths[a]) < float(pr.depths[b]); });
    Image<T> img(width, height, 3);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            T trans = T(1);
            Vec3<T> c{};
            int hits = 0;
            for (std::size_t g : order) {
                if (s.max_splat_steps > 0 && hits == s.max_splat_steps) break;
                T alpha;
                if (!splat_alpha(pr.conics[g], Vec2<T>{T(x) + T(0.5), T(y) + T(0.5)} - pr.means2d[g],
                                 pr.opacities[g], pr.extent_sq[g], T(s.alpha_cutoff), alpha))
                    continue;
                T next = trans * (T(1) - alpha);
                if (next < T(s.transmittance_threshold)) break;
                c += (alpha * trans) * pr.colours[g];
                trans = next;
                ++hits;
            }
            for (int ch = 0; ch < 3; ++ch)
                img.at(x, y, ch) = c[ch] + trans * T(s.background[std::size_t(ch)]);
        }
    return img;
}

}  // namespace radiant::test
