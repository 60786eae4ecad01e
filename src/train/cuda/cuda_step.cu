#include "radiant/train/cuda_step.hpp"

#include <fmt/format.h>

#include <cmath>

#include "radiant/core/error.hpp"
#include "radiant/core/reduce_resolution.hpp"
#include "step_state.hpp"

namespace radiant {
namespace {

// After the stream has been synchronised.
void read_timings(const StageTimer& timer, StepTimings& t) {
    t.project = timer.elapsed_ms(Stage::project);
    t.bin = timer.elapsed_ms(Stage::bin);
    t.sort = timer.elapsed_ms(Stage::sort);
    t.forward = timer.elapsed_ms(Stage::forward);
    t.loss = timer.elapsed_ms(Stage::loss);
    t.backward = timer.elapsed_ms(Stage::backward);
    t.geometry = timer.elapsed_ms(Stage::geometry);
    t.adam = timer.elapsed_ms(Stage::adam);
    t.step = t.project + t.bin + t.sort + t.forward + t.loss + t.backward + t.geometry + t.adam;
}

}  // namespace

CudaStep::CudaStep() : impl_(std::make_unique<Impl>()) {}
CudaStep::~CudaStep() = default;

void CudaStep::set_scene(const Scene& s) {
    // Shapes only: a state with non-finite values is uploaded so the trainer can find and remove them
    // (Backend::remove_non_finite); files are fully validated by their readers.
    validate_shape(s, "CUDA step");
    Impl& d = *impl_;
    d.n = s.size();
    d.sh_degree = s.sh_degree;
    d.params.upload(s, d.stream);
    d.grads.resize_zero(s, d.stream);
    d.m.resize_zero(s, d.stream);
    d.v.resize_zero(s, d.stream);
    d.norms.resize_discard(d.n);
    d.reset_stats();
    d.adam_step = 0;
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
}

Scene CudaStep::scene() const {
    return impl_->params.download(impl_->sh_degree, impl_->stream);
}

void CudaStep::set_adam(const AdamState& s) {
    Impl& d = *impl_;
    RADIANT_CHECK(s.m.size() == d.n && s.v.size() == d.n, "CUDA step: Adam state does not match the scene");
    d.m.upload(s.m, d.stream);
    d.v.upload(s.v, d.stream);
    d.adam_step = s.step;
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
}

AdamState CudaStep::adam() const {
    AdamState s;
    s.m = impl_->m.download(impl_->sh_degree, impl_->stream);
    s.v = impl_->v.download(impl_->sh_degree, impl_->stream);
    s.step = impl_->adam_step;
    return s;
}

void CudaStep::set_appearance(const AppearanceState& s) {
    validate(s, "CUDA step");
    Impl& d = *impl_;
    d.app_model = s.model;
    d.app_steps = s.steps;
    d.app_params.upload(s.params, d.stream);
    d.app_m.upload(s.m, d.stream);
    d.app_v.upload(s.v, d.stream);
    d.app_grad.resize_discard(s.per_image());
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
}

AppearanceState CudaStep::appearance() const {
    const Impl& d = *impl_;
    AppearanceState s;
    s.model = d.app_model;
    s.steps = d.app_steps;
    s.params = d.app_params.download(d.stream);
    s.m = d.app_m.download(d.stream);
    s.v = d.app_v.download(d.stream);
    return s;
}

void CudaStep::set_target(const Image<float>& t) {
    RADIANT_CHECK(t.channels == 3, "CUDA step: the target must be RGB");
    impl_->target.upload(t.data, impl_->stream);
    impl_->target_w = t.width;
    impl_->target_h = t.height;
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
}

double CudaStep::step(const Camera& camera, const RenderSettings& settings, const LearningRates& lr,
                      const AdamConfig& config, StepTimings* timings) {
    Impl& d = *impl_;
    RADIANT_CHECK(camera.width == d.target_w && camera.height == d.target_h,
                  fmt::format("CUDA step: camera is {}x{}, the target {}x{}", camera.width, camera.height,
                              d.target_w, d.target_h));
    StageTimer* timer = timings ? &d.timer : nullptr;
    d.pairs = d.raster.forward(d.view(), camera, settings, d.stream, timer);

    const std::size_t values = std::size_t(camera.width) * std::size_t(camera.height) * 3;
    d.v_rgb.resize_discard(values);
    d.loss_sum.zero(d.stream);
    launch_loss_l1({values, d.raster.rgb(), d.target.data(), d.v_rgb.data(), d.loss_sum.data()}, d.stream);
    if (timer) timer->mark(Stage::loss, d.stream);

    const DeviceGradsView grads = d.grads_view(true);
    d.raster.backward(d.view(), d.v_rgb.data(), grads, d.stream, timer);

    d.adam(lr, config, d.raster.radii(), grads.sh_sources, settings.sh_degree);
    if (timer) timer->mark(Stage::adam, d.stream);

    RADIANT_CUDA_CHECK(
        cudaMemcpyAsync(d.pinned_loss, d.loss_sum.data(), sizeof(double), cudaMemcpyDeviceToHost, d.stream));
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
    if (timings) read_timings(d.timer, *timings);
    return *d.pinned_loss / double(values);
}

void CudaStep::apply_adam(const SceneGrads& g, const LearningRates& lr, const AdamConfig& config) {
    Impl& d = *impl_;
    RADIANT_CHECK(g.means.size() == 3 * d.n && g.sh.size() == d.params.sh.size(),
                  "CUDA step: gradients do not match");
    RADIANT_CHECK(config.scope == AdamScope::all,
                  "CUDA step: given gradients come without a projection to tell which "
                  "Gaussians are visible (AdamConfig::scope)");
    d.grads.means.upload(g.means, d.stream);
    d.grads.log_scales.upload(g.log_scales, d.stream);
    d.grads.quats.upload(g.quats, d.stream);
    d.grads.opacity_logits.upload(g.opacity_logits, d.stream);
    d.grads.sh.upload(g.sh, d.stream);
    d.adam(lr, config, nullptr);
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
}

Image<float> CudaStep::render(const Camera& camera, const RenderSettings& settings) {
    Impl& d = *impl_;
    d.pairs = d.raster.forward(d.view(), camera, settings, d.stream);
    return d.raster.download_rgb(d.stream);
}

RenderLayers CudaStep::render_layers(const Camera& camera, const RenderSettings& settings, bool depth) {
    Impl& d = *impl_;
    d.pairs = d.raster.forward(d.view(), camera, settings, d.stream, nullptr, depth);
    RenderLayers out;
    out.rgb = d.raster.download_rgb(d.stream);
    out.alpha = d.raster.download_alpha(d.stream);
    if (depth) {
        out.depth = d.raster.download_depth(d.stream);
        out.median_depth = d.raster.download_median_depth(d.stream);
    }
    return out;
}

SceneGrads CudaStep::gradients(const Camera& camera, const RenderSettings& settings,
                               const Image<float>& v_rgb) {
    Impl& d = *impl_;
    RADIANT_CHECK(v_rgb.width == camera.width && v_rgb.height == camera.height && v_rgb.channels == 3,
                  "CUDA step: pixel gradient size differs from the camera's");
    d.pairs = d.raster.forward(d.view(), camera, settings, d.stream);
    d.v_rgb.upload(v_rgb.data, d.stream);
    d.raster.backward(d.view(), d.v_rgb.data(), d.grads_view(), d.stream);
    SceneGrads g;
    const Scene s = d.grads.download(d.sh_degree, d.stream);
    g.sh_degree = d.sh_degree;
    g.means = s.means;
    g.log_scales = s.log_scales;
    g.quats = s.quats;
    g.opacity_logits = s.opacity_logits;
    g.sh = s.sh;
    g.mean2d_grad_norms = d.norms.download(d.stream);
    std::vector<int> radii(d.n);
    if (d.n)
        RADIANT_CUDA_CHECK(
            cudaMemcpy(radii.data(), d.raster.radii(), d.n * sizeof(int), cudaMemcpyDeviceToHost));
    g.visible.resize(d.n);
    for (std::size_t i = 0; i < d.n; ++i) g.visible[i] = radii[i] > 0;
    return g;
}

void CudaStep::set_images(const std::vector<TargetImage>& images) {
    Impl& d = *impl_;
    std::size_t total = 0, mask_total = 0;
    d.image_offsets.clear();
    d.mask_offsets.clear();
    d.image_widths.clear();
    d.image_heights.clear();
    d.valid_pixels.clear();
    d.reduced_valid.clear();  // counts of the images a reduced-resolution step took before
    for (const TargetImage& im : images) {
        RADIANT_CHECK(im.rgb.channels == 3, "CUDA step: training images must be RGB");
        const bool masked = !im.mask.data.empty();
        RADIANT_CHECK(!masked || (im.mask.width == im.rgb.width && im.mask.height == im.rgb.height &&
                                  im.mask.channels == 1),
                      "CUDA step: a mask must be [H, W, 1] like its image");
        d.image_offsets.push_back(total);
        d.mask_offsets.push_back(masked ? mask_total : Impl::kNoMask);
        d.image_widths.push_back(im.rgb.width);
        d.image_heights.push_back(im.rgb.height);
        d.valid_pixels.push_back(im.valid_pixels());
        total += im.rgb.data.size();
        mask_total += im.mask.data.size();
    }
    // The images stay for the whole run; more than half the budget would leave the Gaussians too little.
    if (const std::size_t budget = d.counter.budget; budget && total + mask_total > budget / 2) {
        const std::size_t all = total + mask_total;
        int k = 2;
        while (k < 16 && all / std::size_t(k * k) > budget / 2) k *= 2;
        throw OutOfMemory(fmt::format(
            "the {} images need {} on the GPU (8-bit RGB and masks), more than half of the {} device-memory "
            "budget (the rest is for the Gaussians): train with --downscale {} ({} needed), raise "
            "--memory-budget if the GPU has room, or use --backend cpu",
            images.size(), format_bytes(all), format_bytes(budget), k,
            format_bytes(all / std::size_t(k * k))));
    }
    d.images.resize_discard(total);
    d.masks.resize_discard(mask_total);
    for (std::size_t i = 0; i < images.size(); ++i) {
        const TargetImage& im = images[i];
        if (!im.rgb.data.empty())
            RADIANT_CUDA_CHECK(cudaMemcpyAsync(d.images.data() + d.image_offsets[i], im.rgb.data.data(),
                                               im.rgb.data.size(), cudaMemcpyHostToDevice, d.stream));
        if (!im.mask.data.empty())
            RADIANT_CUDA_CHECK(cudaMemcpyAsync(d.masks.data() + d.mask_offsets[i], im.mask.data.data(),
                                               im.mask.data.size(), cudaMemcpyHostToDevice, d.stream));
    }
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
}

DeviceTarget device_image(CudaStep::Impl& d, std::size_t i, const Camera& camera, int factor) {
    RADIANT_CHECK(i < d.image_offsets.size(),
                  fmt::format("CUDA step: no training image {} ({} uploaded)", i, d.image_offsets.size()));
    const int w = reduced_size(d.image_widths[i], factor), h = reduced_size(d.image_heights[i], factor);
    RADIANT_CHECK(camera.width == w && camera.height == h,
                  fmt::format("CUDA step: camera is {}x{}, image {} is {}x{}{}", camera.width, camera.height,
                              i, w, h, factor > 1 ? fmt::format(" at 1/{} of its size", factor) : ""));
    RADIANT_CHECK(d.valid_pixels[i] > 0, fmt::format("CUDA step: image {} has no pixel that counts", i));
    const std::uint8_t* mask =
        d.mask_offsets[i] == CudaStep::Impl::kNoMask ? nullptr : d.masks.data() + d.mask_offsets[i];
    if (factor == 1) return {d.images.data() + d.image_offsets[i], mask, 3.0 * double(d.valid_pixels[i])};

    if (factor != d.reduced_factor || d.reduced_valid.size() != d.image_offsets.size()) {
        d.reduced_valid.assign(d.image_offsets.size(), -1.0);
        d.reduced_factor = factor;
    }
    const std::size_t pixels = std::size_t(w) * std::size_t(h);
    d.reduced_rgb.resize_discard(3 * pixels);
    d.reduced_mask.resize_discard(mask ? pixels : 0);
    const bool count = mask && d.reduced_valid[i] < 0;
    if (count) {
        d.reduced_count.resize_discard(1);
        d.reduced_count.zero(d.stream);
    }
    launch_reduce_image(
        {d.images.data() + d.image_offsets[i], mask, d.image_widths[i], d.image_heights[i], factor,
         d.reduced_rgb.data(), d.reduced_mask.data(), count ? d.reduced_count.data() : nullptr},
        d.stream);
    if (!mask) d.reduced_valid[i] = double(pixels);
    if (count) {  // once per image and factor
        d.reduced_valid[i] = double(d.reduced_count.download(d.stream)[0]);
        RADIANT_CHECK(
            d.reduced_valid[i] > 0,
            fmt::format("CUDA step: image {} has no pixel that counts at 1/{} of its size", i, factor));
    }
    return {d.reduced_rgb.data(), mask ? d.reduced_mask.data() : nullptr, 3.0 * d.reduced_valid[i]};
}

void photometric(CudaStep::Impl& d, const Camera& camera, const float* render, const DeviceTarget& target,
                 float lambda, float* v_render) {
    const std::size_t values = std::size_t(camera.width) * std::size_t(camera.height) * 3;
    d.planes.resize_discard(3 * values);
    PhotometricArgs a;
    a.width = camera.width;
    a.height = camera.height;
    a.render = render;
    a.target = target.rgb;
    a.mask = target.mask;
    a.counted = target.counted;
    a.lambda = lambda;
    a.v_render = v_render;
    a.planes = d.planes.data();
    a.sums = d.sums.data();
    launch_photometric(a, d.stream);
}

void read_sums(CudaStep::Impl& d) {
    RADIANT_CUDA_CHECK(cudaMemcpyAsync(d.pinned_sums, d.sums.data(), kSumCount * sizeof(double),
                                       cudaMemcpyDeviceToHost, d.stream));
    RADIANT_CUDA_CHECK(
        cudaMemcpyAsync(d.pinned_bad, d.bad.data(), 3 * sizeof(unsigned), cudaMemcpyDeviceToHost, d.stream));
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
}

namespace {

// The loss of the render as image in.image was exposed: its transform forward, the photometric pass on
// the result, the VJP back into v_rgb and the transform's gradient, its regulariser and Adam step (not when
// the step only measures: TrainStepArgs::update).
void appearance_step(CudaStep::Impl& d, const Camera& camera, const TrainStepArgs& in,
                     const DeviceTarget& target) {
    RADIANT_CHECK(
        in.image < d.app_steps.size(),
        fmt::format("CUDA step: no appearance for image {} ({} held)", in.image, d.app_steps.size()));
    const std::size_t k = std::size_t(appearance_params(d.app_model));
    const std::size_t values = std::size_t(camera.width) * std::size_t(camera.height) * 3;
    d.app_shown.resize_discard(values);
    d.v_shown.resize_discard(values);
    d.app_grad.zero(d.stream);
    float* params = d.app_params.data() + in.image * k;
    AppearanceArgs a;
    a.model = d.app_model;
    a.width = camera.width;
    a.height = camera.height;
    a.params = params;
    a.render = d.raster.rgb();
    a.shown = d.app_shown.data();
    a.v_shown = d.v_shown.data();
    a.v_render = d.v_rgb.data();
    a.grad = d.app_grad.data();
    launch_appearance_forward(a, d.stream);
    photometric(d, camera, d.app_shown.data(), target, float(in.lambda_ssim), d.v_shown.data());
    launch_appearance_backward(a, d.stream);
    if (!in.update) return;

    AppearanceUpdateArgs u;
    u.model = d.app_model;
    u.params = params;
    u.m = d.app_m.data() + in.image * k;
    u.v = d.app_v.data() + in.image * k;
    u.grad = d.app_grad.data();
    u.reg = float(in.appearance.reg);
    u.adam = appearance_adam(in.appearance, in.adam, ++d.app_steps[in.image]);
    u.sums = d.sums.data();
    u.bad = d.bad.data();
    launch_appearance_update(u, d.stream);
}

}  // namespace

TrainStepResult CudaStep::train_step(const TrainStepArgs& in) {
    Impl& d = *impl_;
    RADIANT_CHECK(in.resolution_factor >= 1, "CUDA step: the resolution factor must be at least 1");
    const Camera camera =
        in.resolution_factor > 1 ? reduced_camera(*in.camera, in.resolution_factor) : *in.camera;
    const DeviceTarget target = device_image(d, in.image, camera, in.resolution_factor);
    TrainStepResult out;
    StageTimer* timer = in.timings ? &d.timer : nullptr;
    out.tile_pairs = d.pairs = d.raster.forward(d.view(), camera, in.settings, d.stream, timer);

    const std::size_t values = std::size_t(camera.width) * std::size_t(camera.height) * 3;
    d.v_rgb.resize_discard(values);
    d.sums.zero(d.stream);
    d.bad.zero(d.stream);
    if (d.app_model == AppearanceModel::off)
        photometric(d, camera, d.raster.rgb(), target, float(in.lambda_ssim), d.v_rgb.data());
    else
        appearance_step(d, camera, in, target);
    if (timer) timer->mark(Stage::loss, d.stream);
    DeviceGradsView grads = d.grads_view(true);
    if (in.camera_grads) grads.camera = d.sums.data() + kSumCamera;
    d.raster.backward(d.view(), d.v_rgb.data(), grads, d.stream, timer);
    if (in.opacity_reg > 0 || in.scale_reg > 0)
        launch_mcmc_regularisers(d.params.view(), d.grads.view(), d.n, double(d.n), float(in.opacity_reg),
                                 float(in.scale_reg), d.sums.data(), d.stream);
    if (in.update) {
        launch_accumulate_stats(d.stats_view(), d.norms.data(), d.raster.radii(), d.n, d.sums.data(),
                                d.stream);
        d.adam(in.lr, in.adam, d.raster.radii(), grads.sh_sources, in.settings.sh_degree);
    }
    if (timer) timer->mark(Stage::adam, d.stream);
    read_sums(d);
    if (timer) read_timings(*timer, *in.timings);

    const double* sum = d.pinned_sums;
    out.l1 = sum[kSumAbs] / target.counted;
    out.mse = sum[kSumSq] / target.counted;
    out.ssim = in.lambda_ssim > 0 ? sum[kSumSsim] / target.counted : 1.0;
    out.loss = (1 - in.lambda_ssim) * out.l1 + in.lambda_ssim * (1 - out.ssim) + sum[kSumAppearance];
    if (d.n) {
        out.loss += in.opacity_reg * sum[kSumOpacity] / double(d.n);
        out.loss += in.scale_reg * sum[kSumScale] / (3.0 * double(d.n));
    }
    out.visible = std::size_t(sum[kSumVisible]);
    out.non_finite_grads = d.pinned_bad[0];
    out.rejected_updates = d.pinned_bad[1];
    out.non_finite_params = d.pinned_bad[2];
    out.camera_rot = {sum[kSumCamera], sum[kSumCamera + 1], sum[kSumCamera + 2]};
    out.camera_trans = {sum[kSumCamera + 3], sum[kSumCamera + 4], sum[kSumCamera + 5]};
    return out;
}

ImageScore CudaStep::evaluate(const Camera& camera, const RenderSettings& settings, std::size_t image,
                              Image<float>* render) {
    Impl& d = *impl_;
    const DeviceTarget target = device_image(d, image, camera);
    d.pairs = d.raster.forward(d.view(), camera, settings, d.stream);
    d.sums.zero(d.stream);
    photometric(d, camera, d.raster.rgb(), target, 1.f, nullptr);
    read_sums(d);
    const double mse = d.pinned_sums[kSumSq] / target.counted;
    ImageScore s;
    s.psnr = mse > 0 ? 10 * std::log10(1.0 / mse) : 100.0;
    s.ssim = d.pinned_sums[kSumSsim] / target.counted;
    if (render) *render = d.raster.download_rgb(d.stream);
    return s;
}

TrainStepResult CudaStep::photometric_loss(const Image<float>& render, std::size_t image, double lambda,
                                           Image<float>* v_render) {
    Impl& d = *impl_;
    Camera camera;
    camera.width = render.width;
    camera.height = render.height;
    const DeviceTarget target = device_image(d, image, camera);
    DeviceBuffer<float> r(&d.counter);
    r.upload(render.data, d.stream);
    d.v_rgb.resize_discard(render.data.size());
    d.sums.zero(d.stream);
    photometric(d, camera, r.data(), target, float(lambda), d.v_rgb.data());
    read_sums(d);
    TrainStepResult out;
    out.l1 = d.pinned_sums[kSumAbs] / target.counted;
    out.mse = d.pinned_sums[kSumSq] / target.counted;
    out.ssim = lambda > 0 ? d.pinned_sums[kSumSsim] / target.counted : 1.0;
    out.loss = (1 - lambda) * out.l1 + lambda * (1 - out.ssim);
    if (v_render) {
        *v_render = Image<float>(render.width, render.height, 3);
        v_render->data = d.v_rgb.download(d.stream);
    }
    return out;
}

void CudaStep::set_stats(const DensifyStats& st) {
    Impl& d = *impl_;
    RADIANT_CHECK(st.grad_accum.size() == d.n && st.denom.size() == d.n && st.max_radii.size() == d.n,
                  "CUDA step: densification statistics do not match the scene");
    d.grad_accum.upload(st.grad_accum, d.stream);
    d.denom.upload(st.denom, d.stream);
    d.max_radii.upload(st.max_radii, d.stream);
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
}

DensifyStats CudaStep::stats() const {
    const Impl& d = *impl_;
    DensifyStats st;
    st.grad_accum = d.grad_accum.download(d.stream);
    st.denom = d.denom.download(d.stream);
    st.max_radii = d.max_radii.download(d.stream);
    return st;
}

std::size_t CudaStep::size() const {
    return impl_->n;
}

void CudaStep::set_replay_rows(int rows) {
    impl_->raster.set_replay_rows(rows);
    impl_->record_raster.set_replay_rows(rows);
}

void CudaStep::set_direct_lanes(int lanes) {
    impl_->raster.set_direct_lanes(lanes);
    impl_->record_raster.set_direct_lanes(lanes);
}

void CudaStep::set_sh_grads_as_sources(bool on) {
    impl_->sh_grads_as_sources = on;
}

std::size_t CudaStep::tile_pairs() const {
    return impl_->pairs;
}
std::size_t CudaStep::peak_bytes() const {
    return impl_->counter.peak;
}
std::size_t CudaStep::current_bytes() const {
    return impl_->counter.current;
}

void CudaStep::set_memory_budget(std::size_t bytes) {
    // Free memory less a margin for what is allocated outside the counter (CUB's and the driver's own).
    impl_->counter.budget =
        bytes ? bytes : impl_->counter.current + cuda::device_memory_info().first / 20 * 19;
}
std::size_t CudaStep::memory_budget() const {
    return impl_->counter.budget;
}
std::size_t CudaStep::image_bytes() const {
    return impl_->images.size();
}

}  // namespace radiant
