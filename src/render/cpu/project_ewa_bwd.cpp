// CPU reference geometry backward for the `ewa` model: the analytic chain rule from the 2D footprint and
// colour to mean, log-scale, quaternion, opacity logit and SH (DESIGN.md §1.7). One Gaussian per iteration,
// no shared writes.
#include <cmath>

#include "radiant/core/densify_rules.hpp"
#include "radiant/core/project.hpp"
#include "radiant/render/cpu/ray_forward.hpp"
#include "radiant/render/cpu/render_cpu.hpp"

namespace radiant::cpu {

template <class T>
void project_ewa_bwd(const SceneT<T>& scene, const Camera& camera, const RenderSettings& settings,
                     const ForwardResult<T>& fwd, const RasterGrads<T>& raster, SceneGradsT<T>& out) {
    out.resize_like(scene);
    out.background = raster.v_background;
    const Projected<T>& pr = fwd.projected;
    const ProjectSettings<T> ps = project_settings<T>(camera, settings, scene.sh_degree);
    const std::size_t k = std::size_t(scene.sh_coeffs());
    const std::int64_t n = std::int64_t(scene.size());
    std::vector<CameraGrads<T>> cam(scene.size(), CameraGrads<T>{});

#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
        const std::size_t g = std::size_t(i);
        if (!pr.visible(g)) continue;  // culled: every gradient stays 0
        out.visible[g] = 1;
        Footprint<T> f{};
        f.conic = pr.conics[g];
        f.opacity = pr.opacities[g];
        const FootprintGrads<T> v{raster.v_means2d[g], raster.v_conics[g], raster.v_colours[g],
                                  raster.v_opacities[g]};
        const GaussianGrads<T> r =
            project_ewa_gaussian_vjp(gaussian_params(scene, g), ps, f, v, out.sh.data() + g * k * 3, &cam[g]);
        for (int c = 0; c < 3; ++c) {
            out.means[3 * g + std::size_t(c)] = r.v_mean[c];
            out.log_scales[3 * g + std::size_t(c)] = r.v_log_scale[c];
        }
        out.quats[4 * g] = r.v_quat.x;
        out.quats[4 * g + 1] = r.v_quat.y;
        out.quats[4 * g + 2] = r.v_quat.z;
        out.quats[4 * g + 3] = r.v_quat.w;
        out.opacity_logits[g] = r.v_opacity_logit;
        out.mean2d_grad_norms[g] = mean2d_grad_norm(raster.v_means2d[g], camera.width, camera.height);
    }
    for (const CameraGrads<T>& c : cam) {
        out.camera_rot += c.v_rot;
        out.camera_trans += c.v_trans;
    }
}

template <class T>
SceneGradsT<T> render_backward(const SceneT<T>& scene, const Camera& camera, const RenderSettings& settings,
                               const ForwardResult<T>& fwd, const Image<T>& v_rgb) {
    if (settings.shading == Shading::ray) return render_backward_ray(scene, camera, settings, fwd, v_rgb);
    const RasterGrads<T> raster = raster_bwd(fwd, v_rgb, settings);
    SceneGradsT<T> out;
    project_ewa_bwd(scene, camera, settings, fwd, raster, out);
    return out;
}

template void project_ewa_bwd<float>(const SceneT<float>&, const Camera&, const RenderSettings&,
                                     const ForwardResult<float>&, const RasterGrads<float>&,
                                     SceneGradsT<float>&);
template void project_ewa_bwd<double>(const SceneT<double>&, const Camera&, const RenderSettings&,
                                      const ForwardResult<double>&, const RasterGrads<double>&,
                                      SceneGradsT<double>&);
template SceneGradsT<float> render_backward<float>(const SceneT<float>&, const Camera&, const RenderSettings&,
                                                   const ForwardResult<float>&, const Image<float>&);
template SceneGradsT<double> render_backward<double>(const SceneT<double>&, const Camera&,
                                                     const RenderSettings&, const ForwardResult<double>&,
                                                     const Image<double>&);

}  // namespace radiant::cpu
