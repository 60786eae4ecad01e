#pragma once
// The training state and step on the GPU (issues 6, 7): parameters, gradients, Adam moments, densification
// statistics and the training images (8-bit) resident on the device; forward, fused L1+SSIM loss, backward,
// fused Adam, densification (ADC and MCMC) and evaluation metrics as kernels. Per step only the loss sums
// (and the tile-pair count) come back; densification reads its counts. Host-side header, built with
// RADIANT_HAS_CUDA.
#include <cstdint>
#include <memory>
#include <vector>

#include "radiant/core/camera.hpp"
#include "radiant/core/image.hpp"
#include "radiant/core/render_settings.hpp"
#include "radiant/core/scene.hpp"
#include "radiant/render/grads.hpp"
#include "radiant/render/splat_record.hpp"
#include "radiant/train/adam.hpp"
#include "radiant/train/appearance.hpp"
#include "radiant/train/backend.hpp"
#include "radiant/train/densify.hpp"

namespace radiant {

struct TrainStepArgs {
    const Camera* camera = nullptr;
    std::size_t image = 0;  // index into set_images
    RenderSettings settings;
    LearningRates lr;
    AdamConfig adam;
    double lambda_ssim = 0.2;
    double opacity_reg = 0, scale_reg = 0;
    AppearanceStep appearance;       // with set_appearance's model: image `image`'s transform's rate and reg
    StepTimings* timings = nullptr;  // per-stage times of this step (CUDA events) when not null
    int resolution_factor = 1;       // train at 1/factor of the resolution (core/reduce_resolution.hpp)
    bool camera_grads = false;       // TrainStepResult::camera_rot/trans wanted (pose refinement)
    bool update = true;              // false: the loss and gradients only; parameters, moments,
                                     // appearance and densification statistics stay as they are
};

struct TrainStepResult {
    double loss = 0, l1 = 0, mse = 0, ssim = 0;
    std::size_t visible = 0, tile_pairs = 0;
    std::size_t non_finite_grads = 0, rejected_updates = 0, non_finite_params = 0;  // elements, as AdamReport
    Vec3<double> camera_rot{}, camera_trans{};  // when TrainStepArgs::camera_grads (core/camera_grad.hpp)
};

struct ImageScore {
    double psnr = 0, ssim = 0;
};

struct DensifyTotals {
    std::size_t clone = 0, split = 0, prune = 0, relocate = 0, add = 0;
    bool capped = false;  // ADC: max_size held some candidates back
};

namespace cuda {
template <class T>
class DeviceBuffer;  // render/cuda/device_buffer.hpp
}

// A view rendered from records projected by any rank (issue 25): its loss and tile pairs.
struct RenderedSplats {
    double loss = 0;  // (1 − λ)·L1 + λ·(1 − SSIM) over the pixels that count
    std::size_t tile_pairs = 0;
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
    // Per-image appearance (model off: none, the default); train_step passes the render through image
    // args.image's transform before the loss and trains it.
    void set_appearance(const AppearanceState& state);
    AppearanceState appearance() const;

    // Training images, uploaded once as 8-bit RGB, with their masks (one byte a pixel, only for images
    // that have one).
    void set_images(const std::vector<TargetImage>& images);
    // Forward, loss against image args.image over the pixels its mask keeps, backward, regularisers,
    // statistics, Adam.
    TrainStepResult train_step(const TrainStepArgs& args);
    // PSNR and SSIM of a render against image `image` over the pixels its mask keeps (and the render,
    // when not null).
    ImageScore evaluate(const Camera& camera, const RenderSettings& settings, std::size_t image,
                        Image<float>* render);

    // For tests: the loss of a given render [H, W, 3] against image `image`, and ∂loss/∂render.
    TrainStepResult photometric_loss(const Image<float>& render, std::size_t image, double lambda,
                                     Image<float>* v_render);

    void set_stats(const DensifyStats& stats);
    DensifyStats stats() const;
    // max_size > 0: at most that many Gaussians after it (adc_capped_threshold picks which densify).
    DensifyTotals densify_adc(const AdcRule& rule, std::uint64_t seed, std::size_t max_size = 0);
    void reset_opacity(double value);
    DensifyTotals densify_mcmc(const McmcConfig& config, std::uint64_t seed);
    // keys (device, one a Gaussian; null: the index) key each Gaussian's draw, as a split's in apply_adc.
    void add_noise(double scale, std::uint64_t seed, const std::uint64_t* keys = nullptr);

    // One step against the set_target image with the L1 loss alone (the benchmark's step); returns the loss.
    double step(const Camera& camera, const RenderSettings& settings, const LearningRates& lr,
                const AdamConfig& config, StepTimings* timings = nullptr);

    // Adam alone with the given gradients (the update step() applies after its backward).
    void apply_adam(const SceneGrads& grads, const LearningRates& lr, const AdamConfig& config);

    // Gaussian-parallel training's stages, which distributed/ runs over ranks (each rank's scene is its
    // share); records and gradients stay in device memory that the caller keeps. The scene's Gaussians
    // `camera` sees, projected: their indices (increasing), their ids (`ids`: the scene's, on the device)
    // and records. Returns their count.
    std::size_t project_share(const Camera& camera, const RenderSettings& settings, const std::uint64_t* ids,
                              cuda::DeviceBuffer<std::uint32_t>& index,
                              cuda::DeviceBuffer<std::uint64_t>& view_ids,
                              cuda::DeviceBuffer<SplatRecord>& splats,
                              cuda::DeviceBuffer<RayFootprintRecord>& footprints);
    // Renders `camera` from `count` records projected by any rank (device memory; `footprints` for `ray`),
    // taken in increasing id where `by_id` (one rank's records come in that order already), the order that
    // decides equal depths; takes weight × the loss against image `image` and the raster backward: each
    // record's gradient into `grads` (device, splat_grad_size floats a record, in the records' order).
    RenderedSplats render_splats(const Camera& camera, const RenderSettings& settings, std::size_t image,
                                 const std::uint64_t* ids, const SplatRecord* splats,
                                 const RayFootprintRecord* footprints, std::size_t count, bool by_id,
                                 double lambda_ssim, double weight, float* grads);
    // A batch: begin_batch, then for each view the geometry backward of the gradients its renderer found
    // for this scene's Gaussians (`index`, as project_share gave them; device memory), summed over the views
    // with the densification statistics; then apply_batch: MCMC's regularisers (means over `count`
    // Gaussians, the whole scene's) and Adam on the sum. `projected`: the last project_share or
    // add_splat_grads was of this camera and settings and the scene has not changed since, so its
    // projection is taken as it stands (render_splats leaves it alone).
    void begin_batch();
    void add_splat_grads(const Camera& camera, const RenderSettings& settings, const std::uint32_t* index,
                         const float* grads, std::size_t count, bool projected);
    void apply_batch(const LearningRates& lr, const AdamConfig& config, double opacity_reg, double scale_reg,
                     double count);
    // Densification over ranks, its decisions taken on the host over every rank's Gaussians: each Gaussian's
    // ADC action (kAdc* flags) under `rule`; the scene after those actions (as densify_adc writes it, a
    // split's draws keyed by `keys`, device memory, one a Gaussian); the means [3N]; rows `which` with their
    // moments; and the scene whose row j is row from[j] (from[j] < size()) or arriving row from[j] − size().
    // The statistics restart after apply_adc and rearrange.
    std::vector<std::uint32_t> adc_actions(const AdcRule& rule);
    void apply_adc(const std::vector<std::uint32_t>& actions, std::uint64_t seed, const std::uint64_t* keys);
    std::vector<float> means() const;
    std::vector<float> opacity_logits() const;
    // MCMC's correction of each Gaussian drawn draws[i] > 0 times as a source, as densify_mcmc corrects it.
    void mcmc_correct(const std::vector<std::uint32_t>& draws);
    void rows(const std::vector<std::uint32_t>& which, Scene& params, Scene& m, Scene& v);
    void rearrange(const std::vector<std::uint32_t>& from, const Scene& params, const Scene& m,
                   const Scene& v);

    // Waits for the work queued so far, before another stream or the host reads what it wrote.
    void synchronize();

    // For tests: the forward image, and the gradients of Σ v_rgb·C (no Adam).
    Image<float> render(const Camera& camera, const RenderSettings& settings);
    SceneGrads gradients(const Camera& camera, const RenderSettings& settings, const Image<float>& v_rgb);
    // The forward's colour, coverage and (when asked for) expected depth, for `radiant render`.
    RenderLayers render_layers(const Camera& camera, const RenderSettings& settings, bool depth);

    // For tests: pixels a thread of the replay backward takes (1, 2 or 4; 0, the default: the most the
    // image's tile count keeps the GPU full with).
    void set_replay_rows(int rows);
    // For tests and `radiant bench`: entries hit by at most this many lanes of a warp skip its reduction.
    void set_direct_lanes(int lanes);
    // For tests and `radiant bench`: whether a one-view step hands Adam its SH gradient as each Gaussian's
    // sources (colour gradient and view direction, core/sh.hpp; the default, fewer bytes) or as the rows
    // of 3·K values. The two give the same bits.
    void set_sh_grads_as_sources(bool on);

    std::size_t size() const;
    std::size_t tile_pairs() const;
    std::size_t peak_bytes() const;
    std::size_t current_bytes() const;
    // What this step may allocate on the GPU (0: no limit, the default; set_memory_budget(0) takes 95 % of
    // the memory free now). Allocations past it throw OutOfMemory; set_images checks the images against it.
    void set_memory_budget(std::size_t bytes);
    std::size_t memory_budget() const;
    std::size_t image_bytes() const;

    struct Impl;  // the device state (src/train/cuda/step_state.hpp), opaque outside the CUDA sources

  private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace radiant
