#pragma once
// The forward and backward on the GPU, for both shading models (issues 6, 8): project → bin → sort → traced
// raster, and raster backward → geometry backward, all on one stream. The `ray` model also keeps each
// pixel's ray and each tile's bounds, computed again only when the intrinsics change. Scene parameters and
// gradients are device arrays owned by the caller; the rasterizer owns the step's workspace, grown
// geometrically and never freed within a run. The only host synchronisation is reading the number of tile
// pairs after binning. Host-side header.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "radiant/core/camera.hpp"
#include "radiant/core/image.hpp"
#include "radiant/core/project.hpp"
#include "radiant/core/render_settings.hpp"
#include "radiant/render/cuda/device_buffer.hpp"
#include "radiant/render/splat_record.hpp"

namespace radiant::cuda {

// Device pointers to a scene's arrays (layout as Scene).
struct DeviceSceneView {
    int n = 0, sh_degree = 0;
    const float *means, *log_scales, *quats, *opacity_logits, *sh;
};

// Device pointers to gradients of every parameter (layout as Scene) and the 2D-gradient norms [N].
struct DeviceGradsView {
    float *means, *log_scales, *quats, *opacity_logits, *sh, *mean2d_grad_norms;
    // When not null: ∂L/∂ of a motion of the camera (core/camera_grad.hpp: ε then τ, 6 values), added into.
    double* camera = nullptr;
    // When not null, `sh` is not written: each Gaussian's ShGradSource (core/sh.hpp: v_colour then dir, 6
    // floats; zeros when culled) goes here [N, 6] instead, for an optimizer that forms the SH gradient where
    // it reads it (6 floats a Gaussian written and read instead of 3·K).
    float* sh_sources = nullptr;
};

// The ewa model's footprint gradients after the raster backward, with what the geometry backward reads
// beside them (gaussian_access.cuh). (A kernel fusing this backward with the optimizer step was measured
// slower than the two stages, twice: bench/RESULTS.md.)
struct EwaFootprintGrads {
    ProjectSettings<float> ps;
    const float4* conic_opacity;  // conic a, b, c and opacity
    const int* radii;             // 0: culled, no gradient
    const float2* v_means2d;
    const float *v_conics, *v_colours, *v_opacities;  // [N, 3], [N, 3], [N]
};

// CUDA events between the stages, for `radiant bench`.
enum class Stage { project, bin, sort, forward, loss, backward, geometry, adam, count };

class StageTimer {
  public:
    StageTimer();
    ~StageTimer();
    StageTimer(const StageTimer&) = delete;
    StageTimer& operator=(const StageTimer&) = delete;
    void start(cudaStream_t s);
    void mark(Stage stage, cudaStream_t s);
    // Milliseconds of each stage since start() (after the stream has been synchronised).
    float elapsed_ms(Stage stage) const;

  private:
    cudaEvent_t start_{};
    cudaEvent_t ends_[int(Stage::count)]{};
    bool marked_[int(Stage::count)]{};
};

struct RasterFwdArgs;  // stages.hpp
struct SplatArrays;
struct SplatGradArrays;

// The backward's default for set_direct_lanes: an entry hit by at most 4 lanes of a warp adds their
// gradients with atomics instead of the warp's reduction (bench/RESULTS.md, twenty-fourth session: backward
// −4 % at bonsai's size, −1.5 % at 1M @1080p, even on the heavier row).
constexpr int kDefaultDirectLanes = 4;

class Rasterizer {
  public:
    explicit Rasterizer(MemoryCounter* counter);
    ~Rasterizer();
    Rasterizer(const Rasterizer&) = delete;
    Rasterizer& operator=(const Rasterizer&) = delete;

    // Forward; the image stays on the device (rgb()). Returns the tile-pair count. With `depth`, the
    // expected and median depth of each pixel too (a kernel of its own: training never pays for it).
    std::size_t forward(const DeviceSceneView& scene, const Camera& camera, const RenderSettings& settings,
                        cudaStream_t stream, StageTimer* timer = nullptr, bool depth = false);
    // The projection alone: forward() is project() then the binning, sort and raster of what it projected.
    void project(const DeviceSceneView& scene, const Camera& camera, const RenderSettings& settings,
                 cudaStream_t stream, StageTimer* timer = nullptr);

    // Gaussian-parallel training (issue 25), where the rank owning a Gaussian projects it and another rank
    // renders the view; records and gradients stay in device memory. After project(): the Gaussians it kept
    // (radius > 0), their indices in the scene into `index` (increasing) and their records (`ray`: with
    // their footprints). Returns their count.
    std::size_t gather_visible(DeviceBuffer<std::uint32_t>& index, DeviceBuffer<SplatRecord>& splats,
                               DeviceBuffer<RayFootprintRecord>& footprints, cudaStream_t stream);
    // forward() of n records projected elsewhere instead of a scene's: the j-th Gaussian is record
    // order[j] (record j where `order` is null); that order decides equal depths. `footprints`: `ray` only.
    std::size_t forward_splats(const Camera& camera, const RenderSettings& settings,
                               const SplatRecord* splats, const RayFootprintRecord* footprints, std::size_t n,
                               const std::uint32_t* order, cudaStream_t stream);
    // After backward_footprints of forward_splats: each record's gradient, splat_grad_size floats, into
    // `out` at the record's own place (the `order` forward_splats was given).
    void splat_grads(float* out, const std::uint32_t* order, cudaStream_t stream);
    // After project(): the footprint gradients backward_footprints would have left, given for the `count`
    // Gaussians `index` names (the others' are zero), so that backward_geometry runs on gradients found
    // elsewhere.
    void set_splat_grads(const std::uint32_t* index, const float* grads, std::size_t count,
                         cudaStream_t stream);

    // Backward of the last forward, from ∂L/∂C on the device ([H·W, 3]); overwrites `out`. The same as
    // backward_footprints then backward_geometry.
    void backward(const DeviceSceneView& scene, const float* v_rgb, DeviceGradsView out, cudaStream_t stream,
                  StageTimer* timer = nullptr);
    // The raster backward alone: the gradients of the footprints (ewa: ewa_footprint_grads; ray: kept for
    // backward_geometry).
    void backward_footprints(const float* v_rgb, cudaStream_t stream, StageTimer* timer = nullptr);
    // The geometry backward of the footprint gradients into every parameter's gradient; overwrites `out`.
    void backward_geometry(const DeviceSceneView& scene, DeviceGradsView out, cudaStream_t stream,
                           StageTimer* timer = nullptr);
    // After backward_footprints of an ewa forward: its footprint gradients for a scene of `scene_degree`.
    EwaFootprintGrads ewa_footprint_grads(int scene_degree) const;

    // For tests: pixels a thread of the replay backward takes (1, 2 or 4; 0: chosen by the tile count).
    void set_replay_rows(int rows);
    // Warp entries hit by at most `lanes` lanes are added with those lanes' atomics, not reduced (0–32).
    void set_direct_lanes(int lanes);

    const float* rgb() const { return rgb_.data(); }
    const int* radii() const { return radii_.data(); }
    int width() const { return width_; }
    int height() const { return height_; }
    Image<float> download_rgb(cudaStream_t stream) const;
    // The last forward's colour [H·W·3], alpha [H·W] and radii [N] into device memory the caller owns (any
    // may be null), enqueued on `stream`: for callers whose tensors live on the GPU (the C API).
    void copy_outputs(float* rgb, float* alpha, int* radii, cudaStream_t stream) const;
    // 1 − final transmittance of the last forward; its expected and median depth (forward with `depth`).
    Image<float> download_alpha(cudaStream_t stream) const;
    Image<float> download_depth(cudaStream_t stream) const;
    Image<float> download_median_depth(cudaStream_t stream) const;

  private:
    // The camera, settings, grid and per-Gaussian arrays of a forward over n Gaussians.
    void begin_view(const Camera& camera, const RenderSettings& settings, std::size_t n);
    std::size_t rasterise(cudaStream_t stream, StageTimer* timer, bool depth);
    SplatArrays splat_arrays();
    SplatGradArrays splat_grad_arrays();
    void zero_footprint_grads(cudaStream_t stream);
    void project_ewa(const DeviceSceneView& scene, const Camera& camera, const RenderSettings& settings,
                     cudaStream_t stream);
    void project_ray(const DeviceSceneView& scene, const Camera& camera, const RenderSettings& settings,
                     cudaStream_t stream);
    void bin(const RenderSettings& settings, bool short_keys, cudaStream_t stream);
    // Sorts the pairs by tile in the two buffer pairs and sets sorted_keys_ / sorted_gids_ to whichever
    // holds the result.
    template <class Key>
    void sort_pairs(Key* keys, Key* keys_other, int end_bit, cudaStream_t stream);
    void order_by_depth(cudaStream_t stream);
    void update_rays(const Camera& camera, int tile_size, cudaStream_t stream);

    MemoryCounter* counter_;
    Camera camera_;
    RenderSettings settings_;
    int width_ = 0, height_ = 0, tiles_x_ = 0, tiles_y_ = 0;
    std::size_t means_count_ = 0, pairs_ = 0;     // Gaussians and tile pairs of the last forward
    std::unique_ptr<RasterFwdArgs> raster_args_;  // the last forward's raster inputs, reused by the backward
    // per Gaussian
    DeviceBuffer<float2> means2d_;
    DeviceBuffer<float4> conic_opacity_;
    DeviceBuffer<float> extent_sq_, depths_, colours_;
    DeviceBuffer<int4> tile_rects_;
    DeviceBuffer<int> radii_;
    DeviceBuffer<std::uint32_t> tiles_touched_, tile_masks_, offsets_;                 // masks: ewa only
    DeviceBuffer<std::uint32_t> depth_keys_sorted_, index_, order_, counts_in_order_;  // order_by_depth
    DeviceBuffer<float2> v_means2d_;
    DeviceBuffer<float> v_conics_, v_colours_, v_opacities_;
    // per Gaussian, `ray` model
    DeviceBuffer<float4> ray_mean_opacity_, ray_bounds_;
    DeviceBuffer<float> ray_whitening_, v_ray_;
    // per camera, `ray` model: pixel rays, tile / column / row bounds, and the camera they were made for
    DeviceBuffer<float2> pixel_dirs_, col_bounds_, row_bounds_;
    DeviceBuffer<float4> tile_bounds_;
    std::optional<Camera> rays_for_;
    // per pair
    // The pairs as binned, and their sort's second buffers; the sorted ones are in either (sort_pairs).
    DeviceBuffer<std::uint32_t> keys_, keys_other_;  // tile ids, two to an element where short (stages.hpp)
    DeviceBuffer<std::uint32_t> gids_, gids_other_;
    const void* sorted_keys_ = nullptr;
    const std::uint32_t* sorted_gids_ = nullptr;
    // per tile / per pixel
    DeviceBuffer<uint2> tile_ranges_;
    DeviceBuffer<float> rgb_, final_T_, hit_alphas_, hit_T_, depth_, median_depth_;
    DeviceBuffer<std::int32_t> n_hits_, last_isect_, hit_gids_;
    // gather_visible's count
    DeviceBuffer<std::uint32_t> visible_count_;
    // scratch (CUB), and a pinned word for the pair count
    DeviceBuffer<unsigned char> scratch_;
    std::uint32_t* pinned_count_ = nullptr;
    int sm_count_ = 0, replay_rows_ = 0, direct_lanes_ = kDefaultDirectLanes;
};

}  // namespace radiant::cuda
