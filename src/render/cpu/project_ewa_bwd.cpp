// CPU reference geometry backward for the `ewa` model: the analytic chain rule from the 2D footprint and
// colour to mean, log-scale, quaternion, opacity logit and SH (DESIGN.md §1.7). One Gaussian per iteration,
// no shared writes.
#include <cmath>

#include "radiant/core/covariance.hpp"
#include "radiant/core/ewa.hpp"
#include "radiant/render/cpu/render_cpu.hpp"

namespace radiant::cpu {

template <class T>
void project_ewa_bwd(const SceneT<T>& scene, const Camera& camera, const RenderSettings& settings,
                     const ForwardResult<T>& fwd, const RasterGrads<T>& raster, SceneGradsT<T>& out) {
    out.resize_like(scene);
    out.background = raster.v_background;
    const Projected<T>& pr = fwd.projected;
    const PinholeParams<T> cam = pinhole_params<T>(camera);
    const Mat3<T> wt = transpose(cam.R);
    const Vec3<T> centre = cast<T>(camera.centre());
    const int degree = settings.sh_degree < scene.sh_degree ? settings.sh_degree : scene.sh_degree;
    const std::size_t k = std::size_t(scene.sh_coeffs());
    const T half_w = T(0.5) * T(camera.width), half_h = T(0.5) * T(camera.height);
    const std::int64_t n = std::int64_t(scene.size());

#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
        const std::size_t g = std::size_t(i);
        if (!pr.visible(g)) continue;  // culled: every gradient stays 0
        out.visible[g] = 1;
        const Vec3<T> mean = scene.mean(g);
        const Vec4<T> quat = scene.quat(g);
        const Vec3<T> raw_log_scale = scene.log_scale(g);
        const Vec3<T> log_scale = clamp_anisotropy(raw_log_scale, T(settings.max_anisotropy));
        const Vec3<T> p = world_to_camera(cam, mean);
        const Mat3<T> cov_cam = cam.R * covariance(log_scale, quat) * wt;

        // conic → 2D covariance → camera-frame covariance and point
        const Sym2<T> v_cov2d = inverse_vjp(pr.conics[g], raster.v_conics[g]);
        Mat3<T> v_cov_cam;
        Vec3<T> v_p{};
        ewa_cov2d_vjp(cam, p, cov_cam, v_cov2d, v_cov_cam, v_p);
        v_p += project_pinhole_vjp(cam, p, raster.v_means2d[g]);

        // camera frame → world: p = W μ + t, Σ_cam = W Σ Wᵀ
        Vec3<T> v_mean = wt * v_p;
        const Mat3<T> v_cov = wt * v_cov_cam * cam.R;
        Vec3<T> v_log_scale{};
        Vec4<T> v_quat{};
        covariance_vjp(log_scale, quat, v_cov, v_log_scale, v_quat);
        v_log_scale = clamp_anisotropy_vjp(raw_log_scale, T(settings.max_anisotropy), v_log_scale);

        // colour = SH(normalize(μ − camera centre))
        const Vec3<T> view = mean - centre;
        const Vec3<T> v_dir = sh_to_colour_vjp(degree, scene.sh_of(g), normalize(view), raster.v_colours[g],
                                               out.sh.data() + g * k * 3);
        v_mean += normalize_vjp(view, v_dir);

        const T opacity = pr.opacities[g];
        out.opacity_logits[g] = raster.v_opacities[g] * opacity * (T(1) - opacity);
        for (int c = 0; c < 3; ++c) {
            out.means[3 * g + std::size_t(c)] = v_mean[c];
            out.log_scales[3 * g + std::size_t(c)] = v_log_scale[c];
        }
        out.quats[4 * g] = v_quat.x;
        out.quats[4 * g + 1] = v_quat.y;
        out.quats[4 * g + 2] = v_quat.z;
        out.quats[4 * g + 3] = v_quat.w;
        const Vec2<T> v2 = raster.v_means2d[g];
        out.mean2d_grad_norms[g] = std::sqrt(v2.x * half_w * v2.x * half_w + v2.y * half_h * v2.y * half_h);
    }
}

template <class T>
SceneGradsT<T> render_backward(const SceneT<T>& scene, const Camera& camera, const RenderSettings& settings,
                               const ForwardResult<T>& fwd, const Image<T>& v_rgb) {
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
