#pragma once
// The device state behind CudaStep, shared by its translation units (the step, densification). Private.
#include <algorithm>
#include <array>
#include <vector>

#include "radiant/render/cuda/rasterizer.hpp"
#include "radiant/train/cuda_step.hpp"
#include "stages.hpp"

namespace radiant {
using namespace radiant::cuda;

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
    GaussianArrays view() {
        return {means.data(), log_scales.data(), quats.data(), opacity_logits.data(), sh.data()};
    }
    // Room for n Gaussians of the given degree (contents not kept when it grows).
    void resize_discard(std::size_t n, int degree) {
        means.resize_discard(3 * n);
        log_scales.resize_discard(3 * n);
        quats.resize_discard(4 * n);
        opacity_logits.resize_discard(n);
        sh.resize_discard(n * std::size_t(sh_coeff_count(degree)) * 3);
    }
    // Copies the first n Gaussians of `from` (sizes already set).
    void copy_prefix(const DeviceArrays& from, std::size_t n, int degree, cudaStream_t st) {
        const std::size_t k = std::size_t(sh_coeff_count(degree)) * 3;
        auto copy = [&](DeviceBuffer<float>& to, const DeviceBuffer<float>& src, std::size_t count) {
            if (count)
                RADIANT_CUDA_CHECK(cudaMemcpyAsync(to.data(), src.data(), count * sizeof(float),
                                                   cudaMemcpyDeviceToDevice, st));
        };
        copy(means, from.means, 3 * n);
        copy(log_scales, from.log_scales, 3 * n);
        copy(quats, from.quats, 4 * n);
        copy(opacity_logits, from.opacity_logits, n);
        copy(sh, from.sh, k * n);
    }
    void swap(DeviceArrays& o) {
        std::swap(means, o.means);
        std::swap(log_scales, o.log_scales);
        std::swap(quats, o.quats);
        std::swap(opacity_logits, o.opacity_logits);
        std::swap(sh, o.sh);
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

struct CudaStep::Impl {
    MemoryCounter counter;
    cudaStream_t stream = nullptr;
    Rasterizer raster{&counter};
    // Gaussian-parallel training renders a view from records in its own rasterizer, so that `raster` keeps
    // the share's last projection for the geometry backward of the same view.
    Rasterizer record_raster{&counter};
    int batch_views = 0;  // views added to batch_grads since begin_batch
    StageTimer timer;
    DeviceArrays params, grads, m, v;
    DeviceArrays batch_grads;  // Gaussian-parallel training: a batch's gradients, summed over its views
    DeviceArrays next_params, next_m, next_v;  // densification writes here, then swaps
    // training images, 8-bit, back to back; masks likewise, for the images that have one
    DeviceBuffer<std::uint8_t> images{&counter}, masks{&counter};
    std::vector<std::size_t> image_offsets, mask_offsets;  // mask_offsets: kNoMask when every pixel counts
    std::vector<int> image_widths, image_heights;
    std::vector<std::size_t> valid_pixels;
    // the image a step at a reduced resolution trains on, and every image's count of pixels that count at
    // the factor in use (-1: not counted yet)
    DeviceBuffer<std::uint8_t> reduced_rgb{&counter}, reduced_mask{&counter};
    DeviceBuffer<unsigned> reduced_count{&counter};
    std::vector<double> reduced_valid;
    int reduced_factor = 1;
    static constexpr std::size_t kNoMask = ~std::size_t(0);
    // densification statistics
    DeviceBuffer<float> grad_accum{&counter}, max_radii{&counter};
    DeviceBuffer<std::int32_t> denom{&counter};
    // loss scratch and sums
    DeviceBuffer<float> planes{&counter};
    DeviceBuffer<double> sums{&counter};
    double* pinned_sums = nullptr;
    unsigned* pinned_bad = nullptr;
    // densification scratch
    DeviceBuffer<std::uint32_t> actions{&counter}, counts{&counter}, offsets{&counter}, totals{&counter},
        copies{&counter};
    DeviceBuffer<double> cdf_alive{&counter}, cdf_all{&counter};
    DeviceBuffer<std::int32_t> dead_ids{&counter}, sources{&counter};
    DeviceBuffer<unsigned char> scan_scratch{&counter};
    DeviceBuffer<float> norms{&counter}, target{&counter}, v_rgb{&counter};
    // A one-view step hands Adam its SH gradient as sources [N, 6] (DeviceGradsView::sh_sources, written
    // where grads.sh is); off (a test's comparison, `radiant bench --sh-rows`): as the rows, as a batch or
    // gradients() has them.
    bool sh_grads_as_sources = true;
    DeviceBuffer<double> loss_sum{&counter};
    // Gaussian-parallel training: the records of a view in increasing id (render_splats)
    DeviceBuffer<std::uint64_t> merge_ids{&counter};
    DeviceBuffer<std::uint32_t> merge_from{&counter}, merge_order{&counter};
    DeviceBuffer<std::uint32_t> row_from{&counter};  // rows()/rearrange(): where each row comes from
    DeviceBuffer<unsigned> bad{&counter};
    double* pinned_loss = nullptr;
    // per-image appearance (issue 22): every image's parameters and moments; one image's gradient; the
    // render as that image was exposed, and the loss's gradient of it
    AppearanceModel app_model = AppearanceModel::off;
    DeviceBuffer<float> app_params{&counter}, app_m{&counter}, app_v{&counter}, app_grad{&counter},
        app_shown{&counter}, v_shown{&counter};
    std::vector<std::int64_t> app_steps;
    int sh_degree = 0;
    std::size_t n = 0, pairs = 0;
    std::int64_t adam_step = 0;
    int target_w = 0, target_h = 0;

    Impl() {
        for (DeviceArrays* a : {&params, &grads, &m, &v, &batch_grads, &next_params, &next_m, &next_v})
            a->set_counter(&counter);
        RADIANT_CUDA_CHECK(cudaStreamCreate(&stream));
        RADIANT_CUDA_CHECK(cudaMallocHost(&pinned_loss, sizeof(double)));
        RADIANT_CUDA_CHECK(cudaMallocHost(&pinned_sums, kSumCount * sizeof(double)));
        RADIANT_CUDA_CHECK(cudaMallocHost(&pinned_bad, 3 * sizeof(unsigned)));
        sums.resize_discard(kSumCount);
        loss_sum.resize_discard(1);
        bad.resize_discard(3);
    }
    ~Impl() {
        cudaFreeHost(pinned_loss);
        cudaFreeHost(pinned_sums);
        cudaFreeHost(pinned_bad);
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
    // radii: the step's projection, read when config.scope is not all. sh_sources: the backward's SH gradient
    // as sources (grads_view's DeviceGradsView::sh_sources) when not null, of a step rendered at sh_active.
    void adam(const LearningRates& lr, const AdamConfig& config, const std::int32_t* radii,
              const float* sh_sources = nullptr, int sh_active = 0) {
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
                         DeviceBuffer<float>& v, AdamElementConfig c, float rest_lr, int sh_coeffs, int per) {
            a.groups[a.count++] = {p.data(), g.data(), m.data(),  v.data(), p.size(),
                                   c,        rest_lr,  sh_coeffs, per};
        };
        group(d.params.means, d.grads.means, d.m.means, d.v.means, element(lr.means, config.means), 0.f, 0,
              3);
        group(d.params.log_scales, d.grads.log_scales, d.m.log_scales, d.v.log_scales,
              element(lr.log_scales, config.log_scales), 0.f, 0, 3);
        group(d.params.quats, d.grads.quats, d.m.quats, d.v.quats, element(lr.quats, config.quats), 0.f, 0,
              4);
        group(d.params.opacity_logits, d.grads.opacity_logits, d.m.opacity_logits, d.v.opacity_logits,
              element(lr.opacity_logits, config.opacity_logits), 0.f, 0, 1);
        const int sh_coeffs = sh_coeff_count(d.sh_degree);
        group(d.params.sh, d.grads.sh, d.m.sh, d.v.sh, element(lr.sh_dc, config.sh), float(lr.sh_rest),
              sh_coeffs, 3 * sh_coeffs);
        if (sh_sources) {
            a.groups[a.count - 1].sh_sources = sh_sources;
            a.groups[a.count - 1].sh_active = sh_coeff_count(std::min(sh_active, d.sh_degree));
        }
        const std::int32_t* geometry_radii = config.geometry_visible_only() ? radii : nullptr;
        for (int k = 0; k + 1 < a.count; ++k) a.groups[k].radii = geometry_radii;
        a.groups[a.count - 1].radii = config.sh_visible_only() ? radii : nullptr;
        a.bad = d.bad.data();
        launch_adam(a, d.stream);
        launch_normalize_quats(d.params.quats.data(), d.n, geometry_radii, d.stream);
    }
    DensifyStatsView stats_view() { return {grad_accum.data(), denom.data(), max_radii.data()}; }
    void reset_stats() {
        grad_accum.resize_discard(n);
        denom.resize_discard(n);
        max_radii.resize_discard(n);
        grad_accum.zero(stream);
        denom.zero(stream);
        max_radii.zero(stream);
    }
    // After the parameter count changed: gradients and per-Gaussian scratch follow, statistics restart.
    // (The SH rows stay allocated although a one-view step writes only their first 6 floats a Gaussian:
    // the memory cap's estimate, train/memory_cap.cpp, is drawn from peaks that include them.)
    void resized() {
        grads.resize_discard(n, sh_degree);
        norms.resize_discard(n);
        reset_stats();
    }
    // Densification and rearranging write the share's next arrays (`count` Gaussians, sized here), then
    // take them in place of the scene.
    void size_next(std::size_t count) {
        for (DeviceArrays* a : {&next_params, &next_m, &next_v}) a->resize_discard(count, sh_degree);
    }
    void take_next() {
        params.swap(next_params);
        m.swap(next_m);
        v.swap(next_v);
        n = params.opacity_logits.size();
        resized();
    }
    // ADC's decisions under `rule`: each Gaussian's action into `actions`, its output count into `counts`,
    // and the round's totals (all sized here).
    void adc_pass(const AdcRule& rule);
    // ADC's outputs (`actions`, scanned into `offsets`: out_n in all) in place of the scene; a split's draws
    // keyed by keys[i] (null: i).
    void write_adc(std::size_t out_n, std::uint64_t seed, const std::uint64_t* keys);
    // Exclusive prefix sum of counts[0..count) into out (CUB), scratch grown as needed.
    void exclusive_scan(const std::uint32_t* in, std::uint32_t* out, std::size_t count);
    void inclusive_scan(const double* in, double* out, std::size_t count);
    // The geometry backward's outputs: with `one_view_step` (its gradients go straight to adam()) and
    // sh_grads_as_sources, the SH gradient as sources; otherwise as rows, sized here.
    DeviceGradsView grads_view(bool one_view_step = false) {
        DeviceGradsView v{grads.means.data(),
                          grads.log_scales.data(),
                          grads.quats.data(),
                          grads.opacity_logits.data(),
                          nullptr,
                          norms.data()};
        const std::size_t row = std::size_t(sh_coeff_count(sh_degree)) * 3;
        if (one_view_step && sh_grads_as_sources) {
            grads.sh.resize_discard(std::max<std::size_t>(row, 6) * n);  // degree 0: rows of 3 floats
            v.sh_sources = grads.sh.data();
        } else {
            grads.sh.resize_discard(row * n);
            v.sh = grads.sh.data();
        }
        return v;
    }
};

// An uploaded image as the loss reads it: its pixels, its mask (null when every pixel counts) and the
// number of values (3 × counted pixels) the sums are over.
struct DeviceTarget {
    const std::uint8_t* rgb;
    const std::uint8_t* mask;
    double counted;
};

// Image i as the loss sees it: as uploaded, or reduced by `factor` (into the step's scratch; `camera` is
// then the reduced camera).
DeviceTarget device_image(CudaStep::Impl& d, std::size_t i, const Camera& camera, int factor = 1);
// Runs the photometric pass against an uploaded image; sums land in d.sums (zeroed by the caller). The
// gradient is of the sums over target.counted values.
void photometric(CudaStep::Impl& d, const Camera& camera, const float* render, const DeviceTarget& target,
                 float lambda, float* v_render);
// d.sums and the bad-value counts to the host (pinned_sums, pinned_bad).
void read_sums(CudaStep::Impl& d);

}  // namespace radiant
