// rd_rasterizer: the forward and backward of one camera on caller memory, for autograd frameworks.
#include <fmt/format.h>

#include "convert.hpp"
#include "guard.hpp"
#include "rasterizer_cpu.hpp"

using namespace radiant;
using radiant::capi::checked;
using radiant::capi::guarded;

#if !RADIANT_HAS_CUDA
void radiant::capi::CudaRasterDeleter::operator()(CudaRaster*) const {}
#endif

extern "C" {

rd_status rd_rasterizer_create(rd_device device, rd_rasterizer** out) {
    if (!out) return capi::fail(RD_ERROR_INVALID_ARGUMENT, "out is NULL");
    if (device != RD_DEVICE_AUTO && device != RD_DEVICE_CPU && device != RD_DEVICE_CUDA)
        return capi::fail(RD_ERROR_INVALID_ARGUMENT,
                          fmt::format("device {} is not auto (0), cpu (1) or cuda (2)", int(device)));
    const bool cuda = device == RD_DEVICE_CUDA || (device == RD_DEVICE_AUTO && rd_cuda_available());
    if (cuda && !rd_cuda_available()) {
#if RADIANT_HAS_CUDA
        return capi::fail(RD_ERROR_NO_CUDA, "no usable CUDA device found");
#else
        return capi::fail(RD_ERROR_NO_CUDA, "radiant was built without CUDA");
#endif
    }
    return guarded([&] {
        auto r = std::make_unique<rd_rasterizer>();
        r->cuda = cuda;
#if RADIANT_HAS_CUDA
        if (cuda) r->gpu.reset(capi::make_cuda_raster());
#endif
        *out = r.release();
    });
}

void rd_rasterizer_free(rd_rasterizer* rasterizer) {
    delete rasterizer;
}

const char* rd_rasterizer_device(const rd_rasterizer* rasterizer) {
    return !rasterizer ? "" : rasterizer->cuda ? "cuda" : "cpu";
}

rd_status rd_rasterizer_forward(rd_rasterizer* rasterizer, const rd_gaussians* gaussians,
                                const rd_camera* camera, const rd_render_options* options, void* rgb,
                                void* alpha, int32_t* radii, int64_t* pairs, void* stream) {
    return guarded([&] {
        checked(rasterizer, "rasterizer");
        checked(gaussians, "gaussians");
        const Camera cam = capi::to_camera(camera);
        const RenderSettings settings = capi::to_settings(options, gaussians->sh_degree);
        if (cam.model != CameraModel::pinhole && settings.shading == Shading::ewa)
            throw Error(
                "rd_rasterizer_forward: a distorted camera needs ray shading (ewa draws pinhole images)");
        const capi::ForwardOutputs out{rgb, alpha, radii, pairs};
        if (!rasterizer->cuda) return capi::cpu_forward(rasterizer->cpu, *gaussians, cam, settings, out);
#if RADIANT_HAS_CUDA
        capi::cuda_forward(*rasterizer->gpu, *gaussians, cam, settings, out, stream);
#else
        (void)stream;
#endif
    });
}

rd_status rd_rasterizer_backward(rd_rasterizer* rasterizer, const rd_gaussians* gaussians, const void* v_rgb,
                                 const rd_gaussians* grads, void* mean2d_grad_norms, void* stream) {
    return guarded([&] {
        checked(rasterizer, "rasterizer");
        checked(gaussians, "gaussians");
        checked(grads, "grads");
        if (!rasterizer->cuda)
            return capi::cpu_backward(rasterizer->cpu, *gaussians, v_rgb, *grads, mean2d_grad_norms);
#if RADIANT_HAS_CUDA
        capi::cuda_backward(*rasterizer->gpu, *gaussians, v_rgb, *grads, mean2d_grad_norms, stream);
#else
        (void)stream;
#endif
    });
}

}  // extern "C"
