#pragma once
// Exact footprint–tile test for binning (DESIGN.md §1.2): a Gaussian is listed for a tile when its
// ellipse (p − μ)ᵀ conic (p − μ) ≤ extent² reaches the rectangle spanned by the tile's pixel centres.
#include <cmath>

#include "radiant/core/vec.hpp"

namespace radiant {

// Tile rectangle [x0, x1) × [y0, y1) in tile units.
struct TileRect {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    RADIANT_HD bool empty() const { return x0 >= x1 || y0 >= y1; }
    RADIANT_HD int count() const { return empty() ? 0 : (x1 - x0) * (y1 - y0); }
};

// Relative margin that keeps the test conservative against rounding: a pixel the raster would shade is
// never left out, at the price of a rare extra (harmless) pair.
constexpr double kTileTestMargin = 1e-4;

// Tiles covered by the footprint's axis-aligned bounding box, clipped to the image; `cov2d` is the
// conic's inverse. Only pixels whose centres fall inside the box count.
template <class T>
RADIANT_HD TileRect footprint_tile_bounds(Vec2<T> mean2d, Sym2<T> cov2d, T extent_sq, int width, int height,
                                          int tile_size) {
    T k2 = extent_sq * T(1 + kTileTestMargin);
    T rx = std::sqrt(k2 * cov2d.a), ry = std::sqrt(k2 * cov2d.c);
    // pixel i is inside when i + 0.5 ∈ [μ − r, μ + r]
    T px0 = std::ceil(mean2d.x - rx - T(0.5)), px1 = std::floor(mean2d.x + rx - T(0.5));
    T py0 = std::ceil(mean2d.y - ry - T(0.5)), py1 = std::floor(mean2d.y + ry - T(0.5));
    TileRect r;
    if (!(px0 <= px1) || !(py0 <= py1) || px1 < T(0) || py1 < T(0) || px0 > T(width - 1) ||
        py0 > T(height - 1))
        return r;  // empty
    int ix0 = px0 < T(0) ? 0 : int(px0), iy0 = py0 < T(0) ? 0 : int(py0);
    int ix1 = px1 > T(width - 1) ? width - 1 : int(px1), iy1 = py1 > T(height - 1) ? height - 1 : int(py1);
    r.x0 = ix0 / tile_size;
    r.y0 = iy0 / tile_size;
    r.x1 = ix1 / tile_size + 1;
    r.y1 = iy1 / tile_size + 1;
    return r;
}

// min over p ∈ [x0, x1] × [y0, y1] of (p − μ)ᵀ Q (p − μ) for positive-definite Q.
template <class T>
RADIANT_HD T min_quadratic_over_rect(Sym2<T> q, Vec2<T> mean, T x0, T x1, T y0, T y1) {
    if (mean.x >= x0 && mean.x <= x1 && mean.y >= y0 && mean.y <= y1) return T(0);
    auto form = [&](T dx, T dy) { return q.a * dx * dx + T(2) * q.b * dx * dy + q.c * dy * dy; };
    T best = T(INFINITY);
    // The convex form's minimum over the rectangle lies on its boundary: minimise along each edge.
    for (int e = 0; e < 2; ++e) {
        T dx = (e == 0 ? x0 : x1) - mean.x;
        T dy = -q.b * dx / q.c;
        if (dy < y0 - mean.y) dy = y0 - mean.y;
        if (dy > y1 - mean.y) dy = y1 - mean.y;
        T v = form(dx, dy);
        best = v < best ? v : best;
        T dy2 = (e == 0 ? y0 : y1) - mean.y;
        T dx2 = -q.b * dy2 / q.a;
        if (dx2 < x0 - mean.x) dx2 = x0 - mean.x;
        if (dx2 > x1 - mean.x) dx2 = x1 - mean.x;
        v = form(dx2, dy2);
        best = v < best ? v : best;
    }
    return best;
}

// Whether the footprint reaches any pixel centre of tile (tx, ty).
template <class T>
RADIANT_HD bool footprint_touches_tile(Vec2<T> mean2d, Sym2<T> conic, T extent_sq, int tx, int ty,
                                       int tile_size, int width, int height) {
    T x0 = T(tx * tile_size) + T(0.5), y0 = T(ty * tile_size) + T(0.5);
    int xe = (tx + 1) * tile_size, ye = (ty + 1) * tile_size;
    T x1 = T(xe < width ? xe : width) - T(0.5), y1 = T(ye < height ? ye : height) - T(0.5);
    return min_quadratic_over_rect(conic, mean2d, x0, x1, y0, y1) <= extent_sq * T(1 + kTileTestMargin);
}

}  // namespace radiant
