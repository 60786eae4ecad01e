// The CUDA training backend (issue 7): the Backend interface over CudaStep. Everything stays on the device;
// the host sees the loss sums per step, counts on densification steps, and the full state only when a
// checkpoint is written or the scene is exported.
#include <fmt/format.h>

#include <cmath>

#include "radiant/core/error.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#include "radiant/train/backend.hpp"
#include "radiant/train/cuda_step.hpp"

namespace radiant {
namespace {

class CudaBackend final : public Backend {
  public:
    std::string name() const override { return "cuda"; }

    void set_images(const std::vector<TargetImage>& images) override { step_.set_images(images); }

    void load(const TrainState& s) override {
        validate_shape(s.params, "training state");
        RADIANT_CHECK(s.adam.m.size() == s.params.size() && s.adam.v.size() == s.params.size() &&
                          s.stats.grad_accum.size() == s.params.size(),
                      "training state: optimizer or statistics do not match the parameters");
        step_.set_scene(s.params);
        step_.set_adam(s.adam);
        step_.set_stats(s.stats);
        step_.set_appearance(s.appearance);
    }
    TrainState save() const override {
        TrainState s;
        s.params = step_.scene();
        s.adam = step_.adam();
        s.stats = step_.stats();
        s.appearance = step_.appearance();
        return s;
    }
    Scene scene() const override { return step_.scene(); }
    std::size_t size() const override { return step_.size(); }

    StepStats step(const StepInput& in) override {
        TrainStepArgs a;
        a.camera = in.camera;
        a.image = in.image;
        a.settings = in.settings;
        a.lr = in.lr;
        a.adam = in.adam;
        a.lambda_ssim = in.lambda_ssim;
        a.opacity_reg = in.opacity_reg;
        a.scale_reg = in.scale_reg;
        a.appearance = in.appearance;
        a.resolution_factor = in.resolution_factor;
        a.camera_grads = in.camera_grads;
        a.update = in.update;
        StepStats out;
        if (in.profile) a.timings = &out.timings;
        const TrainStepResult r = step_.train_step(a);
        out.loss = r.loss;
        out.l1 = r.l1;
        out.psnr = r.mse > 0 ? 10 * std::log10(1.0 / r.mse) : 100.0;
        out.visible = r.visible;
        out.tile_pairs = r.tile_pairs;
        out.non_finite_grads = r.non_finite_grads;
        out.rejected_updates = r.rejected_updates;
        out.non_finite_params = r.non_finite_params;
        out.camera_rot = r.camera_rot;
        out.camera_trans = r.camera_trans;
        return out;
    }

    Image<float> render(const Camera& camera, const RenderSettings& settings) override {
        return step_.render(camera, settings);
    }
    RenderLayers render_layers(const Camera& camera, const RenderSettings& settings, bool depth) override {
        return step_.render_layers(camera, settings, depth);
    }
    ViewScore evaluate(const Camera& camera, const RenderSettings& settings, std::size_t image,
                       Image<float>* render) override {
        const ImageScore s = step_.evaluate(camera, settings, image, render);
        return {s.psnr, s.ssim};
    }

    DensifyStats densify_stats() const override { return step_.stats(); }
    // A plan made elsewhere: applied on the host (tests, tools); training uses the GPU paths below.
    void densify(const DensifyPlan& plan) override {
        TrainState s = save();
        apply_plan(plan, s.params, s.adam, s.stats);
        load(s);
    }
    DensifyCounts densify_adc(const AdcConfig& config, double extent, long step,
                              std::uint64_t seed) override {
        const DensifyTotals t = step_.densify_adc(adc_rule(config, extent, step), seed, config.max_gaussians);
        return {t.clone, t.split, t.prune, 0, 0, t.capped, step_.size()};
    }
    void reset_opacity(double value) override { step_.reset_opacity(value); }
    DensifyCounts densify_mcmc(const McmcConfig& config, std::uint64_t seed) override {
        const DensifyTotals t = step_.densify_mcmc(config, seed);
        return {0, 0, 0, t.relocate, t.add, false, step_.size()};
    }
    void add_noise(double scale, std::uint64_t seed) override { step_.add_noise(scale, seed); }

    void set_memory_budget(std::size_t bytes) override { step_.set_memory_budget(bytes); }
    MemoryUse memory() const override {
        return {step_.current_bytes(), step_.peak_bytes(), step_.memory_budget(), step_.image_bytes()};
    }

  private:
    CudaStep step_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() {
    return std::make_unique<CudaBackend>();
}

}  // namespace radiant
