#pragma once
// The C API's rasterizer on the CPU reference (float for speed, double for finite-difference checks), and
// on the CUDA rasterizer when radiant has it: forward and backward on caller memory.
#include <memory>
#include <variant>

#include "radiant/c/radiant.h"
#include "radiant/core/camera.hpp"
#include "radiant/core/render_settings.hpp"
#include "radiant/core/scene.hpp"
#include "radiant/render/forward.hpp"

namespace radiant::capi {

template <class T>
struct CpuRaster {
    SceneT<T> scene;
    Camera camera;
    RenderSettings settings;
    ForwardResult<T> fwd;
};

struct CudaRaster;  // rasterizer_cuda.cpp
struct CudaRasterDeleter {
    void operator()(CudaRaster* r) const;
};

struct ForwardOutputs {
    void *rgb, *alpha;
    int32_t* radii;
    int64_t* pairs;
};

void cpu_forward(std::variant<std::monostate, CpuRaster<float>, CpuRaster<double>>& state,
                 const rd_gaussians& g, const Camera& camera, const RenderSettings& settings,
                 const ForwardOutputs& out);
void cpu_backward(const std::variant<std::monostate, CpuRaster<float>, CpuRaster<double>>& state,
                  const rd_gaussians& g, const void* v_rgb, const rd_gaussians& grads, void* norms);

CudaRaster* make_cuda_raster();
void cuda_forward(CudaRaster& r, const rd_gaussians& g, const Camera& camera, const RenderSettings& settings,
                  const ForwardOutputs& out, void* stream);
void cuda_backward(CudaRaster& r, const rd_gaussians& g, const void* v_rgb, const rd_gaussians& grads,
                   void* norms, void* stream);

}  // namespace radiant::capi

struct rd_rasterizer {
    bool cuda = false;
    std::variant<std::monostate, radiant::capi::CpuRaster<float>, radiant::capi::CpuRaster<double>> cpu;
    std::unique_ptr<radiant::capi::CudaRaster, radiant::capi::CudaRasterDeleter> gpu;
};
