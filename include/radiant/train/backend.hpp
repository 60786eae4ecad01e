#pragma once
// The training backend (issue 5): owns the parameters, gradients, optimizer state and densification
// statistics on its device. The trainer is written once against this interface; the CPU reference implements
// it, and the CUDA backend plugs in beside it.
#include <memory>
#include <string>

#include "radiant/core/camera.hpp"
#include "radiant/core/image.hpp"
#include "radiant/core/render_settings.hpp"
#include "radiant/core/scene.hpp"
#include "radiant/train/adam.hpp"
#include "radiant/train/densify.hpp"

namespace radiant {

// Everything a backend holds, on the host: what checkpoints store.
struct TrainState {
    Scene params;
    AdamState adam;
    DensifyStats stats;
};

struct StepInput {
    const Camera* camera = nullptr;
    const Image<float>* target = nullptr;  // [H, W, 3] in [0, 1]
    RenderSettings settings;               // background and active SH degree included
    LearningRates lr;
    AdamConfig adam;
    double lambda_ssim = 0.2;
    double opacity_reg = 0, scale_reg = 0;  // MCMC regularisers: λ·mean(opacity), λ·mean(scale)
};

struct StepStats {
    double loss = 0, l1 = 0, psnr = 0;
    std::size_t visible = 0, tile_pairs = 0;
    std::size_t non_finite = 0;  // gradient or parameter values rejected by Adam's guards
};

class Backend {
  public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;

    virtual void load(const TrainState& state) = 0;
    virtual TrainState save() const = 0;
    virtual Scene scene() const = 0;
    virtual std::size_t size() const = 0;

    // Forward, loss, backward, Adam; densification statistics accumulated.
    virtual StepStats step(const StepInput& input) = 0;
    virtual Image<float> render(const Camera& camera, const RenderSettings& settings) = 0;

    virtual DensifyStats densify_stats() const = 0;
    virtual void densify(const DensifyPlan& plan) = 0;
    // MCMC position noise with the given scale (noise_lr · mean learning rate).
    virtual void add_noise(double scale, std::uint64_t seed) = 0;

    virtual std::size_t peak_memory_bytes() const = 0;
};

// "cpu", "cuda" or "auto" (CUDA when a GPU is present and radiant was built with CUDA).
std::unique_ptr<Backend> make_backend(const std::string& name);

}  // namespace radiant
