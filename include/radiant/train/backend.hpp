#pragma once
// The training backend (issue 5): owns the parameters, gradients, optimizer state and densification
// statistics on its device, and the training images once they are handed over. The trainer is written once
// against this interface; the CPU reference and the CUDA backend (issue 7) implement it. Densification has a
// host implementation here (download, plan, apply) that a backend may replace with its own.
#include <memory>
#include <string>
#include <vector>

#include "radiant/core/camera.hpp"
#include "radiant/core/image.hpp"
#include "radiant/core/render_settings.hpp"
#include "radiant/core/scene.hpp"
#include "radiant/train/adam.hpp"
#include "radiant/train/appearance.hpp"
#include "radiant/train/densify.hpp"

namespace radiant {

// Everything a backend holds, on the host: what checkpoints store.
struct TrainState {
    Scene params;
    AdamState adam;
    DensifyStats stats;
    AppearanceState appearance;  // per-image transforms (model off: none)
};

// Milliseconds each stage of one step took (CUDA events; the CPU backend's clock, with projection, binning
// and sorting inside `forward`), and their sum.
struct StepTimings {
    double project = 0, bin = 0, sort = 0, forward = 0, loss = 0, backward = 0, geometry = 0, adam = 0,
           step = 0;
};

struct StepInput {
    const Camera* camera = nullptr;
    std::size_t image = 0;    // index into the images given to set_images (the target)
    RenderSettings settings;  // background and active SH degree included
    LearningRates lr;
    AdamConfig adam;
    double lambda_ssim = 0.2;
    double opacity_reg = 0, scale_reg = 0;  // MCMC regularisers: λ·mean(opacity), λ·mean(scale)
    AppearanceStep appearance;              // when the state holds an appearance model: the render passes
                                            // through image `image`'s transform before the loss
    bool profile = false;                   // time the stages (StepStats::timings); the result is the same
    int resolution_factor = 1;              // train at 1/factor of the resolution: `camera` reduced and the
                                            // image's block means (core/reduce_resolution.hpp)
    bool camera_grads = false;              // StepStats::camera_rot/trans wanted (pose refinement)
    bool update = true;                     // false: the loss and the camera gradient only — no parameter,
                                            // optimizer state or densification statistic changes (pose
                                            // tracking against a fixed scene)
};

struct StepStats {
    double loss = 0, l1 = 0, psnr = 0;  // PSNR of the render after its image's appearance
    std::size_t visible = 0, tile_pairs = 0;
    // Elements Adam's guards met (AdamReport): non-finite gradients (taken as 0), updates rejected (the old
    // value kept), values already non-finite (their Gaussians are for remove_non_finite).
    std::size_t non_finite_grads = 0, rejected_updates = 0, non_finite_params = 0;
    StepTimings timings;  // when StepInput::profile
    // When StepInput::camera_grads: ∂L/∂ of a motion of the camera, as core/camera_grad.hpp takes it.
    Vec3<double> camera_rot{}, camera_trans{};
};

struct ViewScore {
    double psnr = 0, ssim = 0;
};

// A render's layers: colour [H, W, 3], coverage α = 1 − final transmittance [H, W], and (when asked for)
// the expected camera z of the composited hits [H, W] (0 where nothing was hit).
struct RenderLayers {
    Image<float> rgb, alpha, depth, median_depth;  // the depths when asked for (core/composite.hpp)
};

// A backend's memory on its device.
struct MemoryUse {
    std::size_t held = 0, peak = 0;  // bytes now, and the most so far
    std::size_t budget = 0;          // what it may hold (0: no limit it enforces)
    std::size_t images = 0;          // of held: the training images
};

struct DensifyCounts {
    std::size_t clone = 0, split = 0, prune = 0, relocate = 0, add = 0;
    bool capped = false;        // ADC: the Gaussian cap held some candidates back
    std::size_t gaussians = 0;  // the scene's Gaussians after the round (over ranks: all of theirs)
};

class Backend {
  public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;

    // The training and evaluation images (8-bit RGB [H, W, 3] and their masks: pixels a mask excludes never
    // train and never score); the caller keeps them alive for the run.
    virtual void set_images(const std::vector<TargetImage>& images) = 0;

    virtual void load(const TrainState& state) = 0;
    virtual TrainState save() const = 0;
    virtual Scene scene() const = 0;
    virtual std::size_t size() const = 0;

    // Forward, loss, backward, Adam; densification statistics accumulated.
    virtual StepStats step(const StepInput& input) = 0;
    virtual Image<float> render(const Camera& camera, const RenderSettings& settings) = 0;
    virtual RenderLayers render_layers(const Camera& camera, const RenderSettings& settings, bool depth) = 0;
    // PSNR and SSIM of a render against image `image`, over the pixels its mask keeps; the render itself
    // when `render` is not null.
    virtual ViewScore evaluate(const Camera& camera, const RenderSettings& settings, std::size_t image,
                               Image<float>* render) = 0;

    virtual DensifyStats densify_stats() const = 0;
    virtual void densify(const DensifyPlan& plan) = 0;
    // ADC clone/split/prune (plan_adc's rules), opacity reset, MCMC relocation and growth (plan_mcmc's).
    virtual DensifyCounts densify_adc(const AdcConfig& config, double extent, long step, std::uint64_t seed);
    virtual void reset_opacity(double value);
    virtual DensifyCounts densify_mcmc(const McmcConfig& config, std::uint64_t seed);
    // MCMC position noise with the given scale (noise_lr · mean learning rate).
    virtual void add_noise(double scale, std::uint64_t seed) = 0;
    // Removes every Gaussian with a non-finite parameter. Rare (a fault, an overflow), so the host path
    // serves every backend.
    struct NonFinite {
        std::size_t gaussians = 0, values = 0;
    };
    NonFinite remove_non_finite();

    // The memory this backend may use on its device; 0: what the device has free now (the CPU backend
    // enforces none: its images were checked against the host's memory when loaded). Set before set_images.
    virtual void set_memory_budget(std::size_t bytes) = 0;
    virtual MemoryUse memory() const = 0;
};

// "cpu", "cuda" or "auto" (CUDA when a GPU is present and radiant was built with CUDA).
std::unique_ptr<Backend> make_backend(const std::string& name);

}  // namespace radiant
