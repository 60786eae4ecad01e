// CPU reference binning and sorting: exact ellipse–tile pairs, then one sort by 64-bit (tile, depth) keys.
#include <algorithm>
#include <bit>
#include <numeric>

#include "composite_tiles.hpp"
#include "radiant/core/project.hpp"
#include "radiant/render/cpu/render_cpu.hpp"

namespace radiant::cpu {

template <class T>
void bin_and_sort(const Projected<T>& pr, const TileGrid& grid, const RenderSettings& settings,
                  TileLists& lists) {
    const std::int64_t n = std::int64_t(pr.size());
    auto footprint = [&](std::size_t g) {
        Footprint<T> f{};
        f.mean2d = pr.means2d[g];
        f.conic = pr.conics[g];
        f.extent_sq = pr.extent_sq[g];
        f.rect = pr.tile_rects[g];
        return f;
    };

    // Pass 1: pairs per Gaussian; pass 2 writes them at the exclusive prefix sum, in Gaussian order.
    std::vector<std::int64_t> offsets(std::size_t(n) + 1, 0);
#pragma omp parallel for schedule(dynamic, 256)
    for (std::int64_t i = 0; i < n; ++i) {
        const std::size_t g = std::size_t(i);
        if (!pr.visible(g)) continue;
        offsets[g + 1] = for_each_touched_tile(footprint(g), grid.tile_size, grid.tiles_x, grid.width,
                                               grid.height, [](int) {});
    }
    std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
    const std::size_t pairs = std::size_t(offsets.back());

    std::vector<std::pair<std::uint64_t, std::int32_t>> items(pairs);
    if (settings.max_list_entries > 0) items.reserve(std::size_t(settings.max_list_entries));
#pragma omp parallel for schedule(dynamic, 256)
    for (std::int64_t i = 0; i < n; ++i) {
        const std::size_t g = std::size_t(i);
        if (!pr.visible(g)) continue;
        std::size_t pos = std::size_t(offsets[g]);
        // depth > near_plane > 0, so the float's bit pattern orders like the value
        const std::uint64_t depth_bits = std::bit_cast<std::uint32_t>(float(pr.depths[g]));
        for_each_touched_tile(footprint(g), grid.tile_size, grid.tiles_x, grid.width, grid.height,
                              [&](int tile) {
                                  items[pos++] = {(std::uint64_t(tile) << 32) | depth_bits, std::int32_t(g)};
                              });
    }
    std::sort(items.begin(), items.end());  // (key, gid): equal depths keep Gaussian order

    fill_tile_lists(items, grid.tile_count(), lists);
}

template void bin_and_sort<float>(const Projected<float>&, const TileGrid&, const RenderSettings&,
                                  TileLists&);
template void bin_and_sort<double>(const Projected<double>&, const TileGrid&, const RenderSettings&,
                                   TileLists&);

}  // namespace radiant::cpu
