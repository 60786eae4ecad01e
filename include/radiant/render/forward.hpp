#pragma once
// What one forward pass produces, in the layout both backends share (host mirrors of the device buffers).
#include <cstdint>
#include <vector>

#include "radiant/core/image.hpp"
#include "radiant/core/render_settings.hpp"
#include "radiant/core/tiles.hpp"
#include "radiant/core/vec.hpp"

namespace radiant {

struct TileGrid {
    int width = 0, height = 0, tile_size = 16;
    int tiles_x = 0, tiles_y = 0;

    TileGrid() = default;
    TileGrid(int w, int h, int ts)
        : width(w), height(h), tile_size(ts), tiles_x((w + ts - 1) / ts), tiles_y((h + ts - 1) / ts) {}
    int tile_count() const { return tiles_x * tiles_y; }
};

// Per Gaussian [N]. A culled Gaussian has an empty tile_rect and touches nothing.
template <class T>
struct Projected {
    std::vector<Vec2<T>> means2d;  // pixels
    std::vector<Sym2<T>> conics;   // inverse 2D covariance
    std::vector<T> depths;         // camera z
    std::vector<T> opacities;      // sigmoid(logit)
    std::vector<T> extent_sq;      // footprint extent², σ units (ewa.hpp footprint_extent_sq)
    std::vector<Vec3<T>> colours;  // view-dependent RGB
    std::vector<TileRect> tile_rects;
    std::vector<std::int32_t> radii;  // max half-extent of the footprint box in pixels, 0 when culled

    std::size_t size() const { return depths.size(); }
    bool visible(std::size_t g) const { return radii[g] > 0; }
};

// (tile, Gaussian) pairs sorted by (tile, depth), and each tile's [start, end) range in them.
struct TileLists {
    std::vector<std::uint64_t> isect_keys;  // tile << 32 | float bits of depth
    std::vector<std::int32_t> isect_gids;
    std::vector<std::int32_t> tile_ranges;  // [n_tiles, 2]
    std::size_t pairs() const { return isect_gids.size(); }
};

// The forward's record for the backward (DESIGN.md §1.4).
template <class T>
struct PixelTrace {
    TraceMode mode = TraceMode::replay;
    int stride = 0;                        // trace mode: hits stored per pixel (= max_splat_steps)
    std::vector<std::int32_t> n_hits;      // [H·W] hits composited
    std::vector<std::int32_t> last_isect;  // [H·W] one past the list position of the last hit
    std::vector<T> final_T;                // [H·W] transmittance after the last hit
    std::vector<std::int32_t> hit_gids;    // trace mode: [H·W, stride]
    std::vector<T> hit_alphas;             // trace mode: [H·W, stride]
    std::vector<T> hit_T;                  // trace mode: [H·W, stride] transmittance before the hit
};

template <class T>
struct ForwardResult {
    TileGrid grid;
    Projected<T> projected;
    TileLists lists;
    PixelTrace<T> trace;
    Image<T> rgb;           // [H, W, 3]
    Image<T> alpha;         // [H, W] 1 − T_final
    Image<T> depth;         // [H, W] expected camera z of the composited hits, 0 where nothing was hit
    Image<T> median_depth;  // [H, W] camera z where T first falls below ½ (core/composite.hpp), else 0
};

}  // namespace radiant
