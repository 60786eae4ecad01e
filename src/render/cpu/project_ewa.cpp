// CPU reference projection for the `ewa` model: an OpenMP loop over core/project.hpp.
#include "radiant/core/project.hpp"
#include "radiant/render/cpu/render_cpu.hpp"

namespace radiant::cpu {

template <class T>
void project_ewa(const SceneT<T>& scene, const Camera& camera, const RenderSettings& settings,
                 Projected<T>& out) {
    const std::int64_t n = std::int64_t(scene.size());
    out.means2d.assign(std::size_t(n), {});
    out.conics.assign(std::size_t(n), {});
    out.depths.assign(std::size_t(n), T(0));
    out.opacities.assign(std::size_t(n), T(0));
    out.extent_sq.assign(std::size_t(n), T(0));
    out.colours.assign(std::size_t(n), {});
    out.tile_rects.assign(std::size_t(n), {});
    out.radii.assign(std::size_t(n), 0);
    const ProjectSettings<T> ps = project_settings<T>(camera, settings, scene.sh_degree);

#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
        const std::size_t g = std::size_t(i);
        Footprint<T> f;
        if (!project_ewa_gaussian(gaussian_params(scene, g), ps, f)) continue;
        out.means2d[g] = f.mean2d;
        out.conics[g] = f.conic;
        out.depths[g] = f.depth;
        out.opacities[g] = f.opacity;
        out.extent_sq[g] = f.extent_sq;
        out.colours[g] = f.colour;
        out.tile_rects[g] = f.rect;
        out.radii[g] = f.radius;
    }
}

template void project_ewa<float>(const SceneT<float>&, const Camera&, const RenderSettings&,
                                 Projected<float>&);
template void project_ewa<double>(const SceneT<double>&, const Camera&, const RenderSettings&,
                                  Projected<double>&);

}  // namespace radiant::cpu
