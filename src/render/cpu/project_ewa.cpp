// CPU reference projection for the `ewa` model: an OpenMP loop over the shared maths in core/.
#include <cmath>

#include "radiant/core/covariance.hpp"
#include "radiant/core/ewa.hpp"
#include "radiant/render/cpu/render_cpu.hpp"

namespace radiant::cpu {

template <class T>
void project_ewa(const SceneT<T>& scene, const Camera& camera, const RenderSettings& settings,
                 const TileGrid& grid, Projected<T>& out) {
    const std::int64_t n = std::int64_t(scene.size());
    out.means2d.assign(std::size_t(n), {});
    out.conics.assign(std::size_t(n), {});
    out.depths.assign(std::size_t(n), T(0));
    out.opacities.assign(std::size_t(n), T(0));
    out.extent_sq.assign(std::size_t(n), T(0));
    out.colours.assign(std::size_t(n), {});
    out.tile_rects.assign(std::size_t(n), {});
    out.radii.assign(std::size_t(n), 0);

    const PinholeParams<T> cam = pinhole_params<T>(camera);
    const Vec3<T> centre = cast<T>(camera.centre());
    const int degree = settings.sh_degree < scene.sh_degree ? settings.sh_degree : scene.sh_degree;
    const T near = T(settings.near_plane), far = T(settings.far_plane);

#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
        const std::size_t g = std::size_t(i);
        const Vec3<T> mean = scene.mean(g);
        const Vec3<T> p = world_to_camera(cam, mean);
        if (!(p.z >= near && p.z <= far)) continue;
        const Vec3<T> log_scale = clamp_anisotropy(scene.log_scale(g), T(settings.max_anisotropy));
        const Mat3<T> cov_cam = cam.R * covariance(log_scale, scene.quat(g)) * transpose(cam.R);
        const Sym2<T> cov2d = ewa_cov2d(cam, p, cov_cam, T(settings.eps2d));
        Sym2<T> conic;
        if (!inverse(cov2d, conic)) continue;
        const T opacity = sigmoid(scene.opacity_logits[g]);
        const T k2 = footprint_extent_sq(opacity, T(settings.alpha_cutoff), T(settings.radius_scale));
        if (!(k2 > T(0))) continue;
        const Vec2<T> mean2d = project_pinhole(cam, p);
        const TileRect rect =
            footprint_tile_bounds(mean2d, cov2d, k2, grid.width, grid.height, grid.tile_size);
        if (rect.empty()) continue;
        out.means2d[g] = mean2d;
        out.conics[g] = conic;
        out.depths[g] = p.z;
        out.opacities[g] = opacity;
        out.extent_sq[g] = k2;
        out.colours[g] = sh_to_colour(degree, scene.sh_of(g), normalize(mean - centre));
        out.tile_rects[g] = rect;
        const T r = std::ceil(std::sqrt(k2 * (cov2d.a > cov2d.c ? cov2d.a : cov2d.c)));
        out.radii[g] = r < T(1) ? 1 : std::int32_t(r);
    }
}

template void project_ewa<float>(const SceneT<float>&, const Camera&, const RenderSettings&, const TileGrid&,
                                 Projected<float>&);
template void project_ewa<double>(const SceneT<double>&, const Camera&, const RenderSettings&,
                                  const TileGrid&, Projected<double>&);

}  // namespace radiant::cpu
