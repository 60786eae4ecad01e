#pragma once
// The CPU reference's shared forward pieces, for every shading model: the tile lists from sorted (key, id)
// pairs, and the traced front-to-back raster over them with the model's α supplied per (Gaussian, pixel).
// Private to render/cpu.
#include <cstdint>
#include <utility>
#include <vector>

#include "radiant/core/composite.hpp"
#include "radiant/render/forward.hpp"

namespace radiant::cpu {

// Sorted (tile << 32 | depth bits, Gaussian) pairs → isect arrays and each tile's [start, end).
inline void fill_tile_lists(const std::vector<std::pair<std::uint64_t, std::int32_t>>& items, int tile_count,
                            TileLists& lists) {
    lists.isect_keys.resize(items.size());
    lists.isect_gids.resize(items.size());
    lists.tile_ranges.assign(2 * std::size_t(tile_count), 0);
    for (std::size_t i = 0; i < items.size(); ++i) {
        lists.isect_keys[i] = items[i].first;
        lists.isect_gids[i] = items[i].second;
        const std::size_t tile = std::size_t(items[i].first >> 32);
        if (i == 0 || (items[i - 1].first >> 32) != tile) lists.tile_ranges[2 * tile] = std::int32_t(i);
        lists.tile_ranges[2 * tile + 1] = std::int32_t(i + 1);
    }
}

// Composites every pixel over its tile's list: alpha_at(g, x, y, pix, alpha) gives Gaussian g's α at the
// pixel (false: skipped — below the cutoff, or the model has no hit), capped and cut off by the model. Fills
// rgb, alpha, depth and the trace (DESIGN.md §1.4); stops a pixel as Inria 3DGS does when T would fall below
// the threshold, that hit not composited.
template <class T, class AlphaAt>
void composite_tiles(const Projected<T>& pr, const TileLists& lists, const TileGrid& grid,
                     const RenderSettings& settings, ForwardResult<T>& out, AlphaAt alpha_at) {
    const int w = grid.width, h = grid.height;
    const std::size_t n_pix = std::size_t(w) * std::size_t(h);
    out.rgb = Image<T>(w, h, 3);
    out.alpha = Image<T>(w, h, 1);
    out.depth = Image<T>(w, h, 1);
    out.median_depth = Image<T>(w, h, 1);
    PixelTrace<T>& tr = out.trace;
    tr.mode = settings.trace_mode;
    tr.stride = settings.trace_mode == TraceMode::trace ? settings.max_splat_steps : 0;
    tr.n_hits.assign(n_pix, 0);
    tr.last_isect.assign(n_pix, 0);
    tr.final_T.assign(n_pix, T(1));
    const std::size_t stored = n_pix * std::size_t(tr.stride);
    tr.hit_gids.assign(stored, -1);
    tr.hit_alphas.assign(stored, T(0));
    tr.hit_T.assign(stored, T(0));

    const T threshold = T(settings.transmittance_threshold);
    const int max_steps = settings.max_splat_steps;
    const Vec3<T> bg{T(settings.background[0]), T(settings.background[1]), T(settings.background[2])};
    const int ts = grid.tile_size;

#pragma omp parallel for schedule(dynamic)
    for (int tile = 0; tile < grid.tile_count(); ++tile) {
        const int tx = tile % grid.tiles_x, ty = tile / grid.tiles_x;
        const std::int32_t start = lists.tile_ranges[2 * std::size_t(tile)];
        const std::int32_t end = lists.tile_ranges[2 * std::size_t(tile) + 1];
        for (int y = ty * ts; y < (ty + 1) * ts && y < h; ++y)
            for (int x = tx * ts; x < (tx + 1) * ts && x < w; ++x) {
                const std::size_t pix = std::size_t(y) * std::size_t(w) + std::size_t(x);
                T trans = T(1), depth = T(0), median = T(0);
                Vec3<T> c{};
                std::int32_t n_hits = 0, last = start;
                for (std::int32_t i = start; i < end; ++i) {
                    if (max_steps > 0 && n_hits == max_steps) break;
                    const std::size_t g = std::size_t(lists.isect_gids[std::size_t(i)]);
                    T alpha;
                    if (!alpha_at(g, x, y, pix, alpha)) continue;
                    const T next = trans * (T(1) - alpha);
                    if (next < threshold) break;  // as Inria 3DGS: this hit is not composited
                    if (tr.stride > 0) {
                        const std::size_t slot = pix * std::size_t(tr.stride) + std::size_t(n_hits);
                        tr.hit_gids[slot] = std::int32_t(g);
                        tr.hit_alphas[slot] = alpha;
                        tr.hit_T[slot] = trans;
                    }
                    const T weight = alpha * trans;
                    c += weight * pr.colours[g];
                    depth += weight * pr.depths[g];
                    if (is_median_hit(trans, next)) median = pr.depths[g];
                    trans = next;
                    ++n_hits;
                    last = i + 1;
                }
                const Vec3<T> rgb = c + trans * bg;
                for (int ch = 0; ch < 3; ++ch) out.rgb.data[3 * pix + std::size_t(ch)] = rgb[ch];
                const T opacity = T(1) - trans;
                out.alpha.data[pix] = opacity;
                out.depth.data[pix] = expected_depth(depth, trans);
                out.median_depth.data[pix] = median;
                tr.n_hits[pix] = n_hits;
                tr.last_isect[pix] = last;
                tr.final_T[pix] = trans;
            }
    }
}

}  // namespace radiant::cpu
