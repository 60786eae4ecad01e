#include "rasterizer_cpu.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "radiant/core/error.hpp"
#include "radiant/render/cpu/render_cpu.hpp"

namespace radiant::capi {
namespace {

void check_shape(const rd_gaussians& g, const char* what) {
    if (g.n < 0) throw Error(fmt::format("{}: n = {} is negative", what, g.n));
    if (g.sh_degree < 0 || g.sh_degree > 3)
        throw Error(fmt::format("{}: SH degree {} is outside 0–3", what, g.sh_degree));
    if (g.dtype != RD_FLOAT32 && g.dtype != RD_FLOAT64)
        throw Error(fmt::format("{}: dtype {} is not float32 (0) or float64 (1)", what, g.dtype));
    if (g.n > 0 && (!g.means || !g.log_scales || !g.quats || !g.opacity_logits || !g.sh))
        throw Error(fmt::format("{}: an array pointer is NULL", what));
}

template <class T>
void copy_in(std::vector<T>& dst, const void* src, std::size_t count) {
    const T* p = static_cast<const T*>(src);
    dst.assign(p, p + count);
}

template <class T>
void copy_out(const std::vector<T>& src, void* dst) {
    std::copy(src.begin(), src.end(), static_cast<T*>(dst));
}

template <class T>
void forward_as(CpuRaster<T>& r, const rd_gaussians& g, const Camera& camera, const RenderSettings& settings,
                const ForwardOutputs& out) {
    const std::size_t n = std::size_t(g.n), k = std::size_t(sh_coeff_count(g.sh_degree));
    r.scene.sh_degree = g.sh_degree;
    copy_in(r.scene.means, g.means, 3 * n);
    copy_in(r.scene.log_scales, g.log_scales, 3 * n);
    copy_in(r.scene.quats, g.quats, 4 * n);
    copy_in(r.scene.opacity_logits, g.opacity_logits, n);
    copy_in(r.scene.sh, g.sh, 3 * k * n);
    r.camera = camera;
    r.settings = settings;
    r.fwd = cpu::render_forward(r.scene, camera, settings);
    if (out.rgb) copy_out(r.fwd.rgb.data, out.rgb);
    if (out.alpha) copy_out(r.fwd.alpha.data, out.alpha);
    if (out.radii) std::copy(r.fwd.projected.radii.begin(), r.fwd.projected.radii.end(), out.radii);
    if (out.pairs) *out.pairs = int64_t(r.fwd.lists.pairs());
}

template <class T>
void backward_as(const CpuRaster<T>& r, const void* v_rgb, const rd_gaussians& grads, void* norms) {
    Image<T> v(r.camera.width, r.camera.height, 3);
    copy_in(v.data, v_rgb, v.data.size());
    const SceneGradsT<T> g = cpu::render_backward(r.scene, r.camera, r.settings, r.fwd, v);
    copy_out(g.means, grads.means);
    copy_out(g.log_scales, grads.log_scales);
    copy_out(g.quats, grads.quats);
    copy_out(g.opacity_logits, grads.opacity_logits);
    copy_out(g.sh, grads.sh);
    if (norms) copy_out(g.mean2d_grad_norms, norms);
}

}  // namespace

void cpu_forward(std::variant<std::monostate, CpuRaster<float>, CpuRaster<double>>& state,
                 const rd_gaussians& g, const Camera& camera, const RenderSettings& settings,
                 const ForwardOutputs& out) {
    check_shape(g, "rd_rasterizer_forward: gaussians");
    state = std::monostate{};  // a failed forward leaves nothing for a backward to use
    if (g.dtype == RD_FLOAT64)
        forward_as(state.emplace<CpuRaster<double>>(), g, camera, settings, out);
    else
        forward_as(state.emplace<CpuRaster<float>>(), g, camera, settings, out);
}

void cpu_backward(const std::variant<std::monostate, CpuRaster<float>, CpuRaster<double>>& state,
                  const rd_gaussians& g, const void* v_rgb, const rd_gaussians& grads, void* norms) {
    check_shape(grads, "rd_rasterizer_backward: grads");
    if (!v_rgb) throw Error("rd_rasterizer_backward: v_rgb is NULL");
    auto same = [&](const auto& r, int dtype) {
        if (g.n != int64_t(r.scene.size()) || g.sh_degree != r.scene.sh_degree || g.dtype != dtype ||
            grads.n != g.n || grads.sh_degree != g.sh_degree || grads.dtype != g.dtype)
            throw Error(
                fmt::format("rd_rasterizer_backward: the Gaussians ({} at degree {}) and gradients ({} at "
                            "degree {}) must "
                            "match the last forward's ({} at degree {}) and its dtype",
                            g.n, g.sh_degree, grads.n, grads.sh_degree, r.scene.size(), r.scene.sh_degree));
    };
    if (const auto* f = std::get_if<CpuRaster<float>>(&state)) {
        same(*f, RD_FLOAT32);
        backward_as(*f, v_rgb, grads, norms);
    } else if (const auto* d = std::get_if<CpuRaster<double>>(&state)) {
        same(*d, RD_FLOAT64);
        backward_as(*d, v_rgb, grads, norms);
    } else {
        throw Error(
            "rd_rasterizer_backward: no forward to take the backward of (call rd_rasterizer_forward)");
    }
}

}  // namespace radiant::capi
