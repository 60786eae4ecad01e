#include "radiant/train/cuda_step.hpp"

#include <fmt/format.h>

#include <cmath>

#include "radiant/core/error.hpp"
#include "radiant/render/cuda/rasterizer.hpp"
#include "stages.hpp"

namespace radiant {
using namespace radiant::cuda;

namespace {

// The five parameter arrays of a scene on the device.
struct DeviceArrays {
    DeviceBuffer<float> means, log_scales, quats, opacity_logits, sh;
    void set_counter(MemoryCounter* c) {
        for (auto* b : all()) b->set_counter(c);
    }
    std::array<DeviceBuffer<float>*, 5> all() { return {&means, &log_scales, &quats, &opacity_logits, &sh}; }
    void upload(const Scene& s, cudaStream_t st) {
        means.upload(s.means, st);
        log_scales.upload(s.log_scales, st);
        quats.upload(s.quats, st);
        opacity_logits.upload(s.opacity_logits, st);
        sh.upload(s.sh, st);
    }
    void resize_zero(const Scene& s, cudaStream_t st) {
        means.resize_discard(s.means.size());
        log_scales.resize_discard(s.log_scales.size());
        quats.resize_discard(s.quats.size());
        opacity_logits.resize_discard(s.opacity_logits.size());
        sh.resize_discard(s.sh.size());
        for (auto* b : all()) b->zero(st);
    }
    Scene download(int degree, cudaStream_t st) const {
        Scene s;
        s.sh_degree = degree;
        s.means = means.download(st);
        s.log_scales = log_scales.download(st);
        s.quats = quats.download(st);
        s.opacity_logits = opacity_logits.download(st);
        s.sh = sh.download(st);
        return s;
    }
};

}  // namespace

struct CudaStep::Impl {
    MemoryCounter counter;
    cudaStream_t stream = nullptr;
    Rasterizer raster{&counter};
    StageTimer timer;
    DeviceArrays params, grads, m, v;
    DeviceBuffer<float> norms{&counter}, target{&counter}, v_rgb{&counter};
    DeviceBuffer<double> loss_sum{&counter};
    DeviceBuffer<unsigned> bad{&counter};
    double* pinned_loss = nullptr;
    int sh_degree = 0;
    std::size_t n = 0, pairs = 0;
    std::int64_t adam_step = 0;
    int target_w = 0, target_h = 0;

    Impl() {
        for (DeviceArrays* a : {&params, &grads, &m, &v}) a->set_counter(&counter);
        RADIANT_CUDA_CHECK(cudaStreamCreate(&stream));
        RADIANT_CUDA_CHECK(cudaMallocHost(&pinned_loss, sizeof(double)));
        loss_sum.resize_discard(1);
        bad.resize_discard(2);
    }
    ~Impl() {
        cudaFreeHost(pinned_loss);
        cudaStreamDestroy(stream);
    }
    DeviceSceneView view() const {
        return {int(n),
                sh_degree,
                params.means.data(),
                params.log_scales.data(),
                params.quats.data(),
                params.opacity_logits.data(),
                params.sh.data()};
    }
    void adam(const LearningRates& lr, const AdamConfig& config) {
        Impl& d = *this;
        ++d.adam_step;
        const float bias1 = float(1 - std::pow(config.beta1, double(d.adam_step)));
        const float bias2 = float(1 - std::pow(config.beta2, double(d.adam_step)));
        auto element = [&](double group_lr, const GroupLimit& l) {
            return AdamElementConfig{
                float(group_lr), float(config.beta1), float(config.beta2), float(config.eps), bias1,
                bias2,           float(l.grad_clip),  float(l.min),        float(l.max)};
        };
        AdamArgs a{};
        auto group = [&](DeviceBuffer<float>& p, DeviceBuffer<float>& g, DeviceBuffer<float>& m,
                         DeviceBuffer<float>& v, AdamElementConfig c, float rest_lr, int sh_coeffs) {
            a.groups[a.count++] = {p.data(), g.data(), m.data(), v.data(), p.size(), c, rest_lr, sh_coeffs};
        };
        group(d.params.means, d.grads.means, d.m.means, d.v.means, element(lr.means, config.means), 0.f, 0);
        group(d.params.log_scales, d.grads.log_scales, d.m.log_scales, d.v.log_scales,
              element(lr.log_scales, config.log_scales), 0.f, 0);
        group(d.params.quats, d.grads.quats, d.m.quats, d.v.quats, element(lr.quats, config.quats), 0.f, 0);
        group(d.params.opacity_logits, d.grads.opacity_logits, d.m.opacity_logits, d.v.opacity_logits,
              element(lr.opacity_logits, config.opacity_logits), 0.f, 0);
        group(d.params.sh, d.grads.sh, d.m.sh, d.v.sh, element(lr.sh_dc, config.sh), float(lr.sh_rest),
              sh_coeff_count(d.sh_degree));
        a.bad = d.bad.data();
        launch_adam(a, d.stream);
        launch_normalize_quats(d.params.quats.data(), d.n, d.stream);
    }
    DeviceGradsView grads_view() {
        return {grads.means.data(),          grads.log_scales.data(), grads.quats.data(),
                grads.opacity_logits.data(), grads.sh.data(),         norms.data()};
    }
};

CudaStep::CudaStep() : impl_(std::make_unique<Impl>()) {}
CudaStep::~CudaStep() = default;

void CudaStep::set_scene(const Scene& s) {
    validate(s, "CUDA step");
    Impl& d = *impl_;
    d.n = s.size();
    d.sh_degree = s.sh_degree;
    d.params.upload(s, d.stream);
    d.grads.resize_zero(s, d.stream);
    d.m.resize_zero(s, d.stream);
    d.v.resize_zero(s, d.stream);
    d.norms.resize_discard(d.n);
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

    d.raster.backward(d.view(), d.v_rgb.data(), d.grads_view(), d.stream, timer);

    d.adam(lr, config);
    if (timer) timer->mark(Stage::adam, d.stream);

    RADIANT_CUDA_CHECK(
        cudaMemcpyAsync(d.pinned_loss, d.loss_sum.data(), sizeof(double), cudaMemcpyDeviceToHost, d.stream));
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
    if (timings) {
        timings->project = d.timer.elapsed_ms(Stage::project);
        timings->bin = d.timer.elapsed_ms(Stage::bin);
        timings->sort = d.timer.elapsed_ms(Stage::sort);
        timings->forward = d.timer.elapsed_ms(Stage::forward);
        timings->loss = d.timer.elapsed_ms(Stage::loss);
        timings->backward = d.timer.elapsed_ms(Stage::backward);
        timings->geometry = d.timer.elapsed_ms(Stage::geometry);
        timings->adam = d.timer.elapsed_ms(Stage::adam);
        timings->step = timings->project + timings->bin + timings->sort + timings->forward + timings->loss +
                        timings->backward + timings->geometry + timings->adam;
    }
    return *d.pinned_loss / double(values);
}

void CudaStep::apply_adam(const SceneGrads& g, const LearningRates& lr, const AdamConfig& config) {
    Impl& d = *impl_;
    RADIANT_CHECK(g.means.size() == 3 * d.n && g.sh.size() == d.params.sh.size(),
                  "CUDA step: gradients do not match");
    d.grads.means.upload(g.means, d.stream);
    d.grads.log_scales.upload(g.log_scales, d.stream);
    d.grads.quats.upload(g.quats, d.stream);
    d.grads.opacity_logits.upload(g.opacity_logits, d.stream);
    d.grads.sh.upload(g.sh, d.stream);
    d.adam(lr, config);
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
}

Image<float> CudaStep::render(const Camera& camera, const RenderSettings& settings) {
    Impl& d = *impl_;
    d.pairs = d.raster.forward(d.view(), camera, settings, d.stream);
    return d.raster.download_rgb(d.stream);
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

std::size_t CudaStep::tile_pairs() const {
    return impl_->pairs;
}
std::size_t CudaStep::peak_bytes() const {
    return impl_->counter.peak;
}
std::size_t CudaStep::current_bytes() const {
    return impl_->counter.current;
}

}  // namespace radiant
