#include <fmt/format.h>

#include "radiant/core/error.hpp"
#include "radiant/render/cpu/ray_forward.hpp"
#include "radiant/render/cpu/render_cpu.hpp"

namespace radiant::cpu {

template <class T>
ForwardResult<T> render_forward(const SceneT<T>& scene, const Camera& camera,
                                const RenderSettings& settings) {
    if (settings.shading == Shading::ray) return render_forward_ray(scene, camera, settings);
    validate(settings);
    validate(camera, camera.name.empty() ? "camera" : "camera " + camera.name);
    const std::size_t n = scene.size(), k = std::size_t(scene.sh_coeffs());
    RADIANT_CHECK(scene.means.size() == 3 * n && scene.log_scales.size() == 3 * n &&
                      scene.quats.size() == 4 * n && scene.sh.size() == 3 * k * n,
                  fmt::format("scene arrays disagree with its {} Gaussians", n));
    ForwardResult<T> out;
    out.grid = TileGrid(camera.width, camera.height, settings.tile_size);
    project_ewa(scene, camera, settings, out.projected);
    bin_and_sort(out.projected, out.grid, settings, out.lists);
    raster_fwd(out.projected, out.lists, out.grid, settings, out);
    return out;
}

template ForwardResult<float> render_forward<float>(const SceneT<float>&, const Camera&,
                                                    const RenderSettings&);
template ForwardResult<double> render_forward<double>(const SceneT<double>&, const Camera&,
                                                      const RenderSettings&);

}  // namespace radiant::cpu
