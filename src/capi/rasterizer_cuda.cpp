// The C API's rasterizer on the GPU: radiant's CUDA rasterizer run on the caller's device arrays and stream
// (a PyTorch tensor's memory and torch's current stream), outputs copied into the caller's device memory.
#include <cuda_runtime_api.h>

#include <fmt/format.h>

#include "radiant/core/error.hpp"
#include "radiant/core/sh.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#include "radiant/render/cuda/rasterizer.hpp"
#include "rasterizer_cpu.hpp"

namespace radiant::capi {

struct CudaRaster {
    cuda::MemoryCounter counter;
    cuda::Rasterizer raster{&counter};
    cuda::DeviceBuffer<float> norms{&counter};
    int64_t n = -1;
    int sh_degree = 0;
};

void CudaRasterDeleter::operator()(CudaRaster* r) const {
    delete r;
}

CudaRaster* make_cuda_raster() {
    return new CudaRaster();
}

namespace {

// A host pointer handed to the GPU would fault inside a kernel; say which array it was instead.
void require_device(const void* p, const char* what) {
    if (!p) throw Error(fmt::format("{} is NULL", what));
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();  // an unknown pointer sets a (non-sticky) error: clear it for later calls
        throw Error(fmt::format("{} is not GPU memory (a CUDA rasterizer takes device arrays)", what));
    }
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
        throw Error(fmt::format("{} is not GPU memory (a CUDA rasterizer takes device arrays)", what));
}

cuda::DeviceSceneView scene_view(const rd_gaussians& g, const char* what) {
    if (g.dtype != RD_FLOAT32) throw Error(fmt::format("{}: the CUDA rasterizer takes float32", what));
    if (g.n < 0 || g.n > int64_t(INT32_MAX))
        throw Error(fmt::format("{}: n = {} is outside 0–{}", what, g.n, INT32_MAX));
    if (g.sh_degree < 0 || g.sh_degree > 3)
        throw Error(fmt::format("{}: SH degree {} is outside 0–3", what, g.sh_degree));
    if (g.n > 0) {
        require_device(g.means, "means");
        require_device(g.log_scales, "log_scales");
        require_device(g.quats, "quats");
        require_device(g.opacity_logits, "opacity_logits");
        require_device(g.sh, "sh");
    }
    return {int(g.n),
            g.sh_degree,
            static_cast<const float*>(g.means),
            static_cast<const float*>(g.log_scales),
            static_cast<const float*>(g.quats),
            static_cast<const float*>(g.opacity_logits),
            static_cast<const float*>(g.sh)};
}

}  // namespace

void cuda_forward(CudaRaster& r, const rd_gaussians& g, const Camera& camera, const RenderSettings& settings,
                  const ForwardOutputs& out, void* stream) {
    const cuda::DeviceSceneView view = scene_view(g, "rd_rasterizer_forward: gaussians");
    if (out.rgb) require_device(out.rgb, "rgb");
    if (out.alpha) require_device(out.alpha, "alpha");
    if (out.radii) require_device(out.radii, "radii");
    r.n = -1;  // a failed forward leaves nothing for a backward to use
    const auto s = static_cast<cudaStream_t>(stream);
    const std::size_t pairs = r.raster.forward(view, camera, settings, s);
    r.raster.copy_outputs(static_cast<float*>(out.rgb), static_cast<float*>(out.alpha), out.radii, s);
    if (out.pairs) *out.pairs = int64_t(pairs);
    r.n = g.n;
    r.sh_degree = g.sh_degree;
}

void cuda_backward(CudaRaster& r, const rd_gaussians& g, const void* v_rgb, const rd_gaussians& grads,
                   void* norms, void* stream) {
    if (r.n < 0)
        throw Error(
            "rd_rasterizer_backward: no forward to take the backward of (call rd_rasterizer_forward)");
    if (g.n != r.n || g.sh_degree != r.sh_degree || grads.n != g.n || grads.sh_degree != g.sh_degree)
        throw Error(
            fmt::format("rd_rasterizer_backward: the Gaussians ({} at degree {}) and gradients ({} at "
                        "degree {}) must match the last forward's ({} at degree {})",
                        g.n, g.sh_degree, grads.n, grads.sh_degree, r.n, r.sh_degree));
    const cuda::DeviceSceneView view = scene_view(g, "rd_rasterizer_backward: gaussians");
    const cuda::DeviceSceneView out = scene_view(grads, "rd_rasterizer_backward: grads");
    require_device(v_rgb, "v_rgb");
    float* norms_out = static_cast<float*>(norms);
    if (norms_out) {
        require_device(norms_out, "mean2d_grad_norms");
    } else {
        r.norms.resize_discard(std::size_t(g.n));
        norms_out = r.norms.data();
    }
    cuda::DeviceGradsView gv{const_cast<float*>(out.means), const_cast<float*>(out.log_scales),
                             const_cast<float*>(out.quats), const_cast<float*>(out.opacity_logits),
                             const_cast<float*>(out.sh),    norms_out};
    r.raster.backward(view, static_cast<const float*>(v_rgb), gv, static_cast<cudaStream_t>(stream));
}

}  // namespace radiant::capi
