// CPU reference traced raster for the `ewa` model: per pixel, front-to-back compositing over its tile's
// sorted list (composite_tiles), α from the 2D footprint.
#include "composite_tiles.hpp"
#include "radiant/render/cpu/render_cpu.hpp"

namespace radiant::cpu {

template <class T>
void raster_fwd(const Projected<T>& pr, const TileLists& lists, const TileGrid& grid,
                const RenderSettings& settings, ForwardResult<T>& out) {
    const T cutoff = T(settings.alpha_cutoff);
    composite_tiles(pr, lists, grid, settings, out, [&](std::size_t g, int x, int y, std::size_t, T& alpha) {
        const Vec2<T> centre{T(x) + T(0.5), T(y) + T(0.5)};
        return splat_alpha(pr.conics[g], centre - pr.means2d[g], pr.opacities[g], pr.extent_sq[g], cutoff,
                           alpha);
    });
}

template void raster_fwd<float>(const Projected<float>&, const TileLists&, const TileGrid&,
                                const RenderSettings&, ForwardResult<float>&);
template void raster_fwd<double>(const Projected<double>&, const TileLists&, const TileGrid&,
                                 const RenderSettings&, ForwardResult<double>&);

}  // namespace radiant::cpu
