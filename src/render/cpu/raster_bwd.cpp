// CPU reference raster backward, from the forward's trace (DESIGN.md §1.6, §2).
#include <algorithm>

#include <fmt/format.h>

#include "radiant/core/composite.hpp"
#include "radiant/core/error.hpp"
#include "radiant/render/cpu/render_cpu.hpp"

namespace radiant::cpu {
namespace {

template <class T>
struct PairGrad {
    Vec2<T> v_mean2d{};
    Sym2<T> v_conic{};
    Vec3<T> v_colour{};
    T v_opacity{};
};

template <class T>
T clip(T v, T limit) {
    return limit > T(0) ? std::clamp(v, -limit, limit) : v;
}

}  // namespace

template <class T>
RasterGrads<T> raster_bwd(const ForwardResult<T>& fwd, const Image<T>& v_rgb,
                          const RenderSettings& settings) {
    const Projected<T>& pr = fwd.projected;
    const TileLists& lists = fwd.lists;
    const PixelTrace<T>& tr = fwd.trace;
    const TileGrid& grid = fwd.grid;
    RADIANT_CHECK(v_rgb.width == grid.width && v_rgb.height == grid.height && v_rgb.channels == 3,
                  fmt::format("raster_bwd: pixel gradient is {}x{}x{}, the render {}x{}x3", v_rgb.width,
                              v_rgb.height, v_rgb.channels, grid.width, grid.height));
    const int w = grid.width, h = grid.height, ts = grid.tile_size;
    const T cutoff = T(settings.alpha_cutoff), grad_clip = T(settings.loss_grad_clip);
    const Vec3<T> bg{T(settings.background[0]), T(settings.background[1]), T(settings.background[2])};

    std::vector<PairGrad<T>> pair(lists.pairs());
    std::vector<Vec3<T>> tile_bg(std::size_t(grid.tile_count()));

#pragma omp parallel for schedule(dynamic)
    for (int tile = 0; tile < grid.tile_count(); ++tile) {
        const int tx = tile % grid.tiles_x, ty = tile / grid.tiles_x;
        const std::int32_t start = lists.tile_ranges[2 * std::size_t(tile)];
        const std::int32_t end = lists.tile_ranges[2 * std::size_t(tile) + 1];
        // Trace mode stores Gaussian ids; find each one's position in this tile's list (it appears once).
        std::vector<std::pair<std::int32_t, std::int32_t>> by_gid;
        if (tr.mode == TraceMode::trace) {
            for (std::int32_t i = start; i < end; ++i)
                by_gid.push_back({lists.isect_gids[std::size_t(i)], i});
            std::sort(by_gid.begin(), by_gid.end());
        }
        auto position_of = [&](std::int32_t gid) {
            auto it =
                std::lower_bound(by_gid.begin(), by_gid.end(), std::pair<std::int32_t, std::int32_t>{gid, 0});
            return it->second;
        };
        Vec3<T> bg_acc{};
        for (int y = ty * ts; y < (ty + 1) * ts && y < h; ++y)
            for (int x = tx * ts; x < (tx + 1) * ts && x < w; ++x) {
                const std::size_t pix = std::size_t(y) * std::size_t(w) + std::size_t(x);
                const Vec3<T> v_c{clip(v_rgb.data[3 * pix], grad_clip),
                                  clip(v_rgb.data[3 * pix + 1], grad_clip),
                                  clip(v_rgb.data[3 * pix + 2], grad_clip)};
                bg_acc += tr.final_T[pix] * v_c;
                const Vec2<T> centre{T(x) + T(0.5), T(y) + T(0.5)};
                Vec3<T> behind = bg;  // D: the colour behind the current hit
                T trans = tr.final_T[pix];
                // One hit, back to front: alpha and T before it are known.
                auto backprop = [&](std::size_t g, std::int32_t pos, T alpha, T t_before) {
                    PairGrad<T>& pg = pair[std::size_t(pos)];
                    const Vec3<T> c = pr.colours[g];
                    pg.v_colour += (t_before * alpha) * v_c;
                    const T v_alpha = t_before * dot(c - behind, v_c);
                    splat_alpha_vjp(pr.conics[g], centre - pr.means2d[g], pr.opacities[g], v_alpha,
                                    pg.v_conic, pg.v_mean2d, pg.v_opacity);
                    behind = alpha * c + (T(1) - alpha) * behind;
                };
                if (tr.mode == TraceMode::trace) {
                    for (int k = tr.n_hits[pix] - 1; k >= 0; --k) {
                        const std::size_t slot = pix * std::size_t(tr.stride) + std::size_t(k);
                        const std::int32_t g = tr.hit_gids[slot];
                        backprop(std::size_t(g), position_of(g), tr.hit_alphas[slot], tr.hit_T[slot]);
                    }
                } else {
                    // Replay: re-walk the list below the last hit, keeping the hits the forward kept.
                    for (std::int32_t i = tr.last_isect[pix] - 1; i >= start; --i) {
                        const std::size_t g = std::size_t(lists.isect_gids[std::size_t(i)]);
                        T alpha;
                        if (!splat_alpha(pr.conics[g], centre - pr.means2d[g], pr.opacities[g],
                                         pr.extent_sq[g], cutoff, alpha))
                            continue;
                        trans = trans / (T(1) - alpha);
                        backprop(g, i, alpha, trans);
                    }
                }
            }
        tile_bg[std::size_t(tile)] = bg_acc;
    }

    RasterGrads<T> out;
    const std::size_t n = pr.size();
    out.v_means2d.assign(n, {});
    out.v_conics.assign(n, {});
    out.v_colours.assign(n, {});
    out.v_opacities.assign(n, T(0));
    for (std::size_t i = 0; i < lists.pairs(); ++i) {  // fixed order: deterministic sums
        const std::size_t g = std::size_t(lists.isect_gids[i]);
        const PairGrad<T>& pg = pair[i];
        out.v_means2d[g] = out.v_means2d[g] + pg.v_mean2d;
        out.v_conics[g] = {out.v_conics[g].a + pg.v_conic.a, out.v_conics[g].b + pg.v_conic.b,
                           out.v_conics[g].c + pg.v_conic.c};
        out.v_colours[g] += pg.v_colour;
        out.v_opacities[g] += pg.v_opacity;
    }
    for (const Vec3<T>& b : tile_bg) out.v_background += b;
    return out;
}

template RasterGrads<float> raster_bwd<float>(const ForwardResult<float>&, const Image<float>&,
                                              const RenderSettings&);
template RasterGrads<double> raster_bwd<double>(const ForwardResult<double>&, const Image<double>&,
                                                const RenderSettings&);

}  // namespace radiant::cpu
