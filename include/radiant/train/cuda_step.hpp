#pragma once
// The full training step on the GPU (issue 6): forward, fused L1 loss, backward and fused Adam over every
// parameter group, with parameters, gradients, moments and the target image resident on the device. Only the
// loss scalar (and the tile-pair count) come back per step. Host-side header, built with RADIANT_HAS_CUDA.
#include <memory>

#include "radiant/core/camera.hpp"
#include "radiant/core/image.hpp"
#include "radiant/core/render_settings.hpp"
#include "radiant/core/scene.hpp"
#include "radiant/render/grads.hpp"
#include "radiant/train/adam.hpp"

namespace radiant {

struct StepTimings {  // milliseconds, CUDA events
    double project = 0, bin = 0, sort = 0, forward = 0, loss = 0, backward = 0, geometry = 0, adam = 0,
           step = 0;
};

class CudaStep {
  public:
    CudaStep();
    ~CudaStep();
    CudaStep(const CudaStep&) = delete;
    CudaStep& operator=(const CudaStep&) = delete;

    void set_scene(const Scene& scene);  // also resets the Adam moments
    Scene scene() const;
    void set_adam(const AdamState& state);
    AdamState adam() const;
    void set_target(const Image<float>& target);  // [H, W, 3]

    // One step against the target; returns the L1 loss.
    double step(const Camera& camera, const RenderSettings& settings, const LearningRates& lr,
                const AdamConfig& config, StepTimings* timings = nullptr);

    // Adam alone with the given gradients (the update step() applies after its backward).
    void apply_adam(const SceneGrads& grads, const LearningRates& lr, const AdamConfig& config);

    // For tests: the forward image, and the gradients of Σ v_rgb·C (no Adam).
    Image<float> render(const Camera& camera, const RenderSettings& settings);
    SceneGrads gradients(const Camera& camera, const RenderSettings& settings, const Image<float>& v_rgb);

    std::size_t tile_pairs() const;
    std::size_t peak_bytes() const;
    std::size_t current_bytes() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace radiant
