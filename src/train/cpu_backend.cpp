// The CPU reference training backend: render/cpu forward and backward, host Adam and densification.
#include <sys/resource.h>

#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "radiant/core/error.hpp"
#include "radiant/core/reduce_resolution.hpp"
#include "radiant/render/cpu/render_cpu.hpp"
#include "radiant/train/backend.hpp"
#include "radiant/train/loss.hpp"

namespace radiant {
namespace {

// Milliseconds between laps when profiling, else nothing (0).
class StageClock {
  public:
    explicit StageClock(bool on) : on_(on), last_(std::chrono::steady_clock::now()) {}
    double lap() {
        if (!on_) return 0;
        const auto now = std::chrono::steady_clock::now();
        const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
        last_ = now;
        return ms;
    }

  private:
    bool on_;
    std::chrono::steady_clock::time_point last_;
};

class CpuBackend final : public Backend {
  public:
    std::string name() const override { return "cpu"; }

    void load(const TrainState& s) override {
        validate_shape(s.params, "training state");
        RADIANT_CHECK(s.adam.m.size() == s.params.size() && s.adam.v.size() == s.params.size() &&
                          s.stats.grad_accum.size() == s.params.size(),
                      "training state: optimizer or statistics do not match the parameters");
        validate(s.appearance, "training state");
        state_ = s;
    }
    TrainState save() const override { return state_; }
    Scene scene() const override { return state_.params; }
    std::size_t size() const override { return state_.params.size(); }

    void set_images(const std::vector<TargetImage>& images) override {
        images_ = &images;
        reduced_.clear();
    }

    StepStats step(const StepInput& in) override {
        Scene& p = state_.params;
        const TargetImage& t = target_image(in.image, in.resolution_factor);
        const Camera camera =
            in.resolution_factor > 1 ? reduced_camera(*in.camera, in.resolution_factor) : *in.camera;
        const Image<float> target = to_float(t.rgb);
        StageClock clock(in.profile);
        const ForwardResult<float> fwd = cpu::render_forward(p, camera, in.settings);
        const double forward_ms = clock.lap();
        Image<float> v_rgb;
        StepStats out;
        AppearanceState& app = state_.appearance;
        if (app.model == AppearanceModel::off) {
            const LossValue loss = photometric_loss(fwd.rgb, target, in.lambda_ssim, &v_rgb, &t.mask);
            out.loss = loss.total;
            out.l1 = loss.l1;
            out.psnr = psnr(fwd.rgb, target, &t.mask);
        } else {
            // The loss sees the render as image `image` was exposed; its gradient flows back through the
            // transform to the render and into the transform's parameters.
            RADIANT_CHECK(
                in.image < app.images(),
                fmt::format("CPU backend: no appearance for image {} ({} held)", in.image, app.images()));
            const float* params = app.image_params(in.image);
            const Image<float> shown = apply_appearance(app.model, params, fwd.rgb);
            Image<float> v_shown;
            const LossValue loss = photometric_loss(shown, target, in.lambda_ssim, &v_shown, &t.mask);
            std::vector<float> g_app(app.per_image(), 0.f);
            v_rgb = appearance_backward(app.model, params, fwd.rgb, v_shown, g_app);
            out.loss = loss.total;
            if (in.update) out.loss += appearance_update(app, in.image, g_app, in.appearance, in.adam);
            out.l1 = loss.l1;
            out.psnr = psnr(shown, target, &t.mask);
        }
        const double loss_ms = clock.lap();
        SceneGrads g = cpu::render_backward(p, camera, in.settings, fwd, v_rgb);
        out.timings.forward = forward_ms;
        out.timings.loss = loss_ms;
        out.timings.backward = clock.lap();
        out.tile_pairs = fwd.lists.pairs();
        if (in.camera_grads) {
            out.camera_rot = {double(g.camera_rot.x), double(g.camera_rot.y), double(g.camera_rot.z)};
            out.camera_trans = {double(g.camera_trans.x), double(g.camera_trans.y), double(g.camera_trans.z)};
        }
        if (!in.update) return out;
        if (in.opacity_reg > 0 || in.scale_reg > 0)
            out.loss += add_mcmc_regularisers(p, g, in.opacity_reg, in.scale_reg, double(p.size()));
        out.visible += state_.stats.add_view(g, fwd.projected.radii);
        const AdamReport r = adam_step(p, g, state_.adam, in.lr, in.adam, &fwd.projected.radii);
        out.non_finite_grads = r.non_finite_grads;
        out.rejected_updates = r.rejected_updates;
        out.non_finite_params = r.non_finite_params;
        out.timings.adam = clock.lap();
        const StepTimings& tm = out.timings;
        out.timings.step = tm.forward + tm.loss + tm.backward + tm.adam;
        return out;
    }

    Image<float> render(const Camera& camera, const RenderSettings& settings) override {
        return cpu::render_forward(state_.params, camera, settings).rgb;
    }
    RenderLayers render_layers(const Camera& camera, const RenderSettings& settings, bool depth) override {
        ForwardResult<float> f = cpu::render_forward(state_.params, camera, settings);
        if (!depth) return {std::move(f.rgb), std::move(f.alpha), {}, {}};
        return {std::move(f.rgb), std::move(f.alpha), std::move(f.depth), std::move(f.median_depth)};
    }

    ViewScore evaluate(const Camera& camera, const RenderSettings& settings, std::size_t index,
                       Image<float>* render_out) override {
        Image<float> r = render(camera, settings);
        const TargetImage& t = image(index);
        const Image<float> gt = to_float(t.rgb);
        const ViewScore score{psnr(r, gt, &t.mask), ssim(r, gt, &t.mask)};
        if (render_out) *render_out = std::move(r);
        return score;
    }

    DensifyStats densify_stats() const override { return state_.stats; }
    void densify(const DensifyPlan& plan) override {
        apply_plan(plan, state_.params, state_.adam, state_.stats);
    }
    void add_noise(double scale, std::uint64_t seed) override {
        add_position_noise(state_.params, scale, seed);
    }

    void set_memory_budget(std::size_t) override {}
    MemoryUse memory() const override {
        rusage u{};
        getrusage(RUSAGE_SELF, &u);
        MemoryUse m;
        m.held = m.peak = std::size_t(u.ru_maxrss) * 1024;  // the process's peak; Linux reports KiB
        if (images_)
            for (const TargetImage& im : *images_) m.images += im.rgb.data.size() + im.mask.data.size();
        return m;
    }

  private:
    const TargetImage& image(std::size_t i) const {
        RADIANT_CHECK(images_ && i < images_->size(),
                      fmt::format("CPU backend: no training image {} (set_images first)", i));
        return (*images_)[i];
    }
    TrainState state_;
    // Image i as a step at 1/factor of the resolution trains on; the reduced images of the factor in use
    // are kept (a quarter of the set's memory at most) and dropped when it changes.
    const TargetImage& target_image(std::size_t i, int factor) {
        if (factor <= 1) return image(i);
        if (factor != reduced_factor_ || reduced_.size() != images_->size()) {
            reduced_.assign(images_->size(), TargetImage{});
            reduced_factor_ = factor;
        }
        TargetImage& r = reduced_[i];
        if (r.rgb.data.empty()) r = reduced_image(image(i), factor);
        return r;
    }

    const std::vector<TargetImage>* images_ = nullptr;
    std::vector<TargetImage> reduced_;
    int reduced_factor_ = 1;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() {
    return std::make_unique<CpuBackend>();
}

}  // namespace radiant
