#include "radiant/render/cuda/rasterizer.hpp"

#include <fmt/format.h>
#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "radiant/core/project.hpp"
#include "radiant/core/ray_project.hpp"
#include "stages.hpp"

namespace radiant::cuda {

StageTimer::StageTimer() {
    RADIANT_CUDA_CHECK(cudaEventCreate(&start_));
    for (auto& e : ends_) RADIANT_CUDA_CHECK(cudaEventCreate(&e));
}
StageTimer::~StageTimer() {
    cudaEventDestroy(start_);
    for (auto& e : ends_) cudaEventDestroy(e);
}
void StageTimer::start(cudaStream_t s) {
    RADIANT_CUDA_CHECK(cudaEventRecord(start_, s));
    for (bool& m : marked_) m = false;
}
void StageTimer::mark(Stage stage, cudaStream_t s) {
    RADIANT_CUDA_CHECK(cudaEventRecord(ends_[int(stage)], s));
    marked_[int(stage)] = true;
}
float StageTimer::elapsed_ms(Stage stage) const {
    if (!marked_[int(stage)]) return 0.f;
    // the previous marked stage (or the start) to this one
    cudaEvent_t from = start_;
    for (int s = int(stage) - 1; s >= 0; --s)
        if (marked_[s]) {
            from = ends_[s];
            break;
        }
    float ms = 0.f;
    RADIANT_CUDA_CHECK(cudaEventElapsedTime(&ms, from, ends_[int(stage)]));
    return ms;
}

Rasterizer::Rasterizer(MemoryCounter* c) : counter_(c), raster_args_(std::make_unique<RasterFwdArgs>()) {
    for (auto* b : {&extent_sq_, &depths_, &colours_, &v_conics_, &v_colours_, &v_opacities_, &rgb_,
                    &final_T_, &hit_alphas_, &hit_T_, &depth_, &median_depth_, &ray_whitening_, &v_ray_})
        b->set_counter(c);
    for (auto* b : {&means2d_, &v_means2d_, &pixel_dirs_, &col_bounds_, &row_bounds_}) b->set_counter(c);
    for (auto* b : {&conic_opacity_, &ray_mean_opacity_, &ray_bounds_, &tile_bounds_}) b->set_counter(c);
    tile_rects_.set_counter(c);
    radii_.set_counter(c);
    tiles_touched_.set_counter(c);
    tile_masks_.set_counter(c);
    offsets_.set_counter(c);
    for (auto* b : {&depth_keys_sorted_, &index_, &order_, &counts_in_order_}) b->set_counter(c);
    keys_.set_counter(c);
    keys_other_.set_counter(c);
    gids_.set_counter(c);
    gids_other_.set_counter(c);
    tile_ranges_.set_counter(c);
    n_hits_.set_counter(c);
    last_isect_.set_counter(c);
    hit_gids_.set_counter(c);
    scratch_.set_counter(c);
    visible_count_.set_counter(c);
}

Rasterizer::~Rasterizer() {
    if (pinned_count_) cudaFreeHost(pinned_count_);
}

namespace {

int bits_for(std::uint32_t v) {
    int b = 0;
    while (b < 32 && (std::uint64_t(1) << b) <= v) ++b;
    return b;
}

bool same_intrinsics(const Camera& a, const Camera& b) {
    return a.width == b.width && a.height == b.height && a.fx == b.fx && a.fy == b.fy && a.cx == b.cx &&
           a.cy == b.cy && a.model == b.model && a.distortion == b.distortion;
}

template <class Args>
void fill_scene_args(const DeviceSceneView& s, Args& a) {
    a.n = s.n;
    a.sh_coeffs = sh_coeff_count(s.sh_degree);
    a.means = s.means;
    a.log_scales = s.log_scales;
    a.quats = s.quats;
    a.opacity_logits = s.opacity_logits;
    a.sh = s.sh;
}

template <class Args>
void fill_grads_args(const DeviceGradsView& out, Args& a) {
    a.g_means = out.means;
    a.g_log_scales = out.log_scales;
    a.g_quats = out.quats;
    a.g_opacity_logits = out.opacity_logits;
    a.g_sh = out.sh;
    a.g_sh_sources = out.sh_sources;
    a.mean2d_grad_norms = out.mean2d_grad_norms;
    a.camera_grads = out.camera;
}

}  // namespace

void Rasterizer::project_ewa(const DeviceSceneView& scene, const Camera& camera,
                             const RenderSettings& settings, cudaStream_t stream) {
    const std::size_t n = std::size_t(scene.n);
    means2d_.resize_discard(n);
    conic_opacity_.resize_discard(n);
    extent_sq_.resize_discard(n);
    ProjectFwdArgs p{};
    fill_scene_args(scene, p);
    p.ps = project_settings<float>(camera, settings, scene.sh_degree);
    p.tiles_x = tiles_x_;
    p.means2d = means2d_.data();
    p.conic_opacity = conic_opacity_.data();
    p.extent_sq = extent_sq_.data();
    p.depths = depths_.data();
    p.colours = colours_.data();
    p.tile_rects = tile_rects_.data();
    p.radii = radii_.data();
    p.tiles_touched = tiles_touched_.data();
    tile_masks_.resize_discard(n);
    p.tile_masks = tile_masks_.data();
    launch_project_ewa_fwd(p, stream);
}

void Rasterizer::update_rays(const Camera& camera, int tile_size, cudaStream_t stream) {
    const std::size_t tiles = std::size_t(tiles_x_) * std::size_t(tiles_y_);
    // Rays depend on the intrinsics alone (not the pose), so a dataset with one camera model makes them once.
    // The tile grid is part of the key through its shape: two tile sizes give the same grid only for an
    // image of one tile, whose bounds are then the same.
    if (rays_for_ && same_intrinsics(*rays_for_, camera) && tile_bounds_.size() == tiles &&
        col_bounds_.size() == std::size_t(tiles_x_))
        return;
    pixel_dirs_.resize_discard(std::size_t(width_) * std::size_t(height_));
    tile_bounds_.resize_discard(tiles);
    col_bounds_.resize_discard(std::size_t(tiles_x_));
    row_bounds_.resize_discard(std::size_t(tiles_y_));
    RayCameraArgs r{};
    r.width = width_;
    r.height = height_;
    r.tile_size = tile_size;
    r.tiles_x = tiles_x_;
    r.tiles_y = tiles_y_;
    r.fx = camera.fx;
    r.fy = camera.fy;
    r.cx = camera.cx;
    r.cy = camera.cy;
    r.lens = distortion_of<double>(camera);
    r.pixel_dirs = pixel_dirs_.data();
    r.tile_bounds = tile_bounds_.data();
    r.col_bounds = col_bounds_.data();
    r.row_bounds = row_bounds_.data();
    launch_ray_camera(r, stream);
    rays_for_ = camera;
}

void Rasterizer::project_ray(const DeviceSceneView& scene, const Camera& camera,
                             const RenderSettings& settings, cudaStream_t stream) {
    update_rays(camera, settings.tile_size, stream);
    const std::size_t n = std::size_t(scene.n);
    ray_mean_opacity_.resize_discard(n);
    ray_whitening_.resize_discard(9 * n);
    ray_bounds_.resize_discard(n);
    ProjectRayFwdArgs p{};
    fill_scene_args(scene, p);
    p.ps = project_settings<float>(camera, settings, scene.sh_degree);
    p.tiles_x = tiles_x_;
    p.tiles_y = tiles_y_;
    p.tile_bounds = tile_bounds_.data();
    p.col_bounds = col_bounds_.data();
    p.row_bounds = row_bounds_.data();
    p.mean_opacity = ray_mean_opacity_.data();
    p.whitening = ray_whitening_.data();
    p.bounds = ray_bounds_.data();
    p.depths = depths_.data();
    p.colours = colours_.data();
    p.tile_rects = tile_rects_.data();
    p.radii = radii_.data();
    p.tiles_touched = tiles_touched_.data();
    launch_project_ray_fwd(p, stream);
}

// cub's double-buffer form: the sort's passes go back and forth between the two buffer pairs, so its
// temporary storage holds histograms only, not a third copy of every pair (the peak memory of a
// 30M-pair view falls by ~190 MB).
template <class Key>
void Rasterizer::sort_pairs(Key* keys, Key* keys_other, int end_bit, cudaStream_t stream) {
    cub::DoubleBuffer<Key> k(keys, keys_other);
    cub::DoubleBuffer<std::uint32_t> g(gids_.data(), gids_other_.data());
    std::size_t sort_bytes = 0;
    RADIANT_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, k, g, pairs_, 0, end_bit, stream));
    scratch_.resize_discard(std::max(scratch_.size(), sort_bytes));
    RADIANT_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(scratch_.data(), sort_bytes, k, g, pairs_, 0, end_bit, stream));
    sorted_keys_ = k.Current();
    sorted_gids_ = g.Current();
}

void Rasterizer::bin(const RenderSettings& settings, bool short_keys, cudaStream_t stream) {
    const int n = int(means_count_);
    if (settings.shading == Shading::ray) {
        BinRayArgs b{};
        b.n = n;
        b.tiles_x = tiles_x_;
        b.bounds = ray_bounds_.data();
        b.order = order_.data();
        b.tile_rects = tile_rects_.data();
        b.tile_bounds = tile_bounds_.data();
        b.offsets = offsets_.data();
        b.isect_keys = keys_.data();
        b.short_keys = short_keys;
        b.isect_gids = gids_.data();
        launch_bin_ray_tiles(b, stream);
        return;
    }
    BinArgs b{};
    b.n = n;
    b.tiles_x = tiles_x_;
    b.tile_size = settings.tile_size;
    b.width = width_;
    b.height = height_;
    b.means2d = means2d_.data();
    b.conic_opacity = conic_opacity_.data();
    b.extent_sq = extent_sq_.data();
    b.order = order_.data();
    b.tile_rects = tile_rects_.data();
    b.tile_masks = tile_masks_.data();
    b.offsets = offsets_.data();
    b.isect_keys = keys_.data();
    b.short_keys = short_keys;
    b.isect_gids = gids_.data();
    launch_bin_tiles(b, stream);
}

void Rasterizer::set_replay_rows(int rows) {
    RADIANT_CHECK(rows == 0 || rows == 1 || rows == 2 || rows == 4, "replay rows must be 0, 1, 2 or 4");
    replay_rows_ = rows;
}

void Rasterizer::set_direct_lanes(int lanes) {
    RADIANT_CHECK(lanes >= 0 && lanes <= 32, "direct lanes must be 0–32");
    direct_lanes_ = lanes;
}

void Rasterizer::order_by_depth(cudaStream_t stream) {
    const int n = int(means_count_);
    depth_keys_sorted_.resize_discard(means_count_);
    index_.resize_discard(means_count_);
    order_.resize_discard(means_count_);
    counts_in_order_.resize_discard(means_count_);
    launch_iota(index_.data(), n, stream);
    // depth > near_plane > 0 for every Gaussian with pairs: its float's bits order like its value. The
    // others' keys (whatever their depth holds) decide only where their zero counts go.
    const auto* depth_bits = reinterpret_cast<const std::uint32_t*>(depths_.data());
    std::size_t sort_bytes = 0;
    RADIANT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, depth_bits,
                                                       depth_keys_sorted_.data(), index_.data(),
                                                       order_.data(), n, 0, 32, stream));
    scratch_.resize_discard(std::max(scratch_.size(), sort_bytes));
    RADIANT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch_.data(), sort_bytes, depth_bits,
                                                       depth_keys_sorted_.data(), index_.data(),
                                                       order_.data(), n, 0, 32, stream));
    launch_gather_counts({n, order_.data(), tiles_touched_.data(), counts_in_order_.data()}, stream);
}

void Rasterizer::begin_view(const Camera& camera, const RenderSettings& settings, std::size_t n) {
    validate(settings);
    validate(camera, camera.name.empty() ? "camera" : "camera " + camera.name);
    RADIANT_CHECK(settings.tile_size == 8 || settings.tile_size == 16,
                  "the CUDA backend needs tile_size 8 or 16");
    camera_ = camera;
    settings_ = settings;
    width_ = camera.width;
    height_ = camera.height;
    tiles_x_ = (width_ + settings.tile_size - 1) / settings.tile_size;
    tiles_y_ = (height_ + settings.tile_size - 1) / settings.tile_size;
    means_count_ = n;
    if (!pinned_count_) RADIANT_CUDA_CHECK(cudaMallocHost(&pinned_count_, 2 * sizeof(std::uint32_t)));
    if (!sm_count_) {
        int device = 0;
        RADIANT_CUDA_CHECK(cudaGetDevice(&device));
        RADIANT_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device));
    }
    depths_.resize_discard(n);
    colours_.resize_discard(3 * n);
    tile_rects_.resize_discard(n);
    radii_.resize_discard(n);
    tiles_touched_.resize_discard(n);
    offsets_.resize_discard(n);
}

void Rasterizer::project(const DeviceSceneView& scene, const Camera& camera, const RenderSettings& settings,
                         cudaStream_t stream, StageTimer* timer) {
    begin_view(camera, settings, std::size_t(scene.n));
    if (timer) timer->start(stream);
    if (settings.shading == Shading::ray)
        project_ray(scene, camera, settings, stream);
    else
        project_ewa(scene, camera, settings, stream);
    if (timer) timer->mark(Stage::project, stream);
}

std::size_t Rasterizer::forward(const DeviceSceneView& scene, const Camera& camera,
                                const RenderSettings& settings, cudaStream_t stream, StageTimer* timer,
                                bool depth) {
    project(scene, camera, settings, stream, timer);
    return rasterise(stream, timer, depth);
}

std::size_t Rasterizer::rasterise(cudaStream_t stream, StageTimer* timer, bool depth) {
    const RenderSettings& settings = settings_;
    const std::size_t n = means_count_, pixels = std::size_t(width_) * std::size_t(height_);
    const std::size_t tiles = std::size_t(tiles_x_) * std::size_t(tiles_y_);
    // Depth order of the Gaussians, then the exclusive scan of their pair counts in that order; the total
    // comes back to the host to size the pair sort.
    pairs_ = 0;
    if (n > 0) {
        order_by_depth(stream);
        std::size_t scan_bytes = 0;
        RADIANT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts_in_order_.data(),
                                                         offsets_.data(), int(n), stream));
        scratch_.resize_discard(std::max(scratch_.size(), scan_bytes));
        RADIANT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch_.data(), scan_bytes, counts_in_order_.data(),
                                                         offsets_.data(), int(n), stream));
        RADIANT_CUDA_CHECK(cudaMemcpyAsync(pinned_count_, offsets_.data() + n - 1, sizeof(std::uint32_t),
                                           cudaMemcpyDeviceToHost, stream));
        RADIANT_CUDA_CHECK(cudaMemcpyAsync(pinned_count_ + 1, counts_in_order_.data() + n - 1,
                                           sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream));
        RADIANT_CUDA_CHECK(cudaStreamSynchronize(stream));
        pairs_ = std::size_t(pinned_count_[0]) + std::size_t(pinned_count_[1]);
    }
    // 2-byte tile keys live in the 4-byte key buffers, half of each used.
    const bool short_keys = short_tile_keys(tiles);
    keys_.resize_discard(short_keys ? (pairs_ + 1) / 2 : pairs_);
    keys_other_.resize_discard(short_keys ? (pairs_ + 1) / 2 : pairs_);
    gids_.resize_discard(pairs_);
    gids_other_.resize_discard(pairs_);
    sorted_keys_ = keys_.data();
    sorted_gids_ = gids_.data();
    bin(settings, short_keys, stream);
    if (timer) timer->mark(Stage::bin, stream);

    // Binning took the Gaussians in depth order: a stable sort on the tile bits alone.
    if (pairs_ > 0) {
        const int end_bit = std::max(1, bits_for(std::uint32_t(tiles - 1)));
        if (short_keys)
            sort_pairs(reinterpret_cast<std::uint16_t*>(keys_.data()),
                       reinterpret_cast<std::uint16_t*>(keys_other_.data()), end_bit, stream);
        else
            sort_pairs(keys_.data(), keys_other_.data(), end_bit, stream);
    }
    tile_ranges_.resize_discard(tiles);
    tile_ranges_.zero(stream);
    launch_tile_ranges({pairs_, sorted_keys_, short_keys, tile_ranges_.data()}, stream);
    if (timer) timer->mark(Stage::sort, stream);

    const int stride = settings.trace_mode == TraceMode::trace ? settings.max_splat_steps : 0;
    rgb_.resize_discard(3 * pixels);
    final_T_.resize_discard(pixels);
    n_hits_.resize_discard(pixels);
    last_isect_.resize_discard(pixels);
    hit_gids_.resize_discard(pixels * std::size_t(stride));
    hit_alphas_.resize_discard(pixels * std::size_t(stride));
    hit_T_.resize_discard(pixels * std::size_t(stride));
    RasterFwdArgs& r = *raster_args_;  // kept: the backward reads the same lists and trace
    r = {};
    r.shading = settings.shading;
    r.width = width_;
    r.height = height_;
    r.tile_size = settings.tile_size;
    r.tiles_x = tiles_x_;
    r.tiles_y = tiles_y_;
    r.tile_ranges = tile_ranges_.data();
    r.isect_gids = sorted_gids_;
    r.colours = colours_.data();
    if (settings.shading == Shading::ray) {
        r.ray_mean_opacity = ray_mean_opacity_.data();
        r.ray_whitening = ray_whitening_.data();
        r.pixel_dirs = pixel_dirs_.data();
    } else {
        r.means2d = means2d_.data();
        r.conic_opacity = conic_opacity_.data();
        r.extent_sq = extent_sq_.data();
    }
    r.alpha_cutoff = float(settings.alpha_cutoff);
    r.transmittance_threshold = float(settings.transmittance_threshold);
    r.max_splat_steps = settings.max_splat_steps;
    r.background = make_float3(float(settings.background[0]), float(settings.background[1]),
                               float(settings.background[2]));
    r.trace_stride = stride;
    r.rgb = rgb_.data();
    r.final_T = final_T_.data();
    r.n_hits = n_hits_.data();
    r.last_isect = last_isect_.data();
    r.hit_gids = hit_gids_.data();
    r.hit_alphas = hit_alphas_.data();
    r.hit_T = hit_T_.data();
    if (depth) {
        depth_.resize_discard(pixels);
        median_depth_.resize_discard(pixels);
        r.depths = depths_.data();
        r.depth = depth_.data();
        r.median_depth = median_depth_.data();
    }
    launch_raster_fwd(r, stream);
    if (timer) timer->mark(Stage::forward, stream);
    return pairs_;
}

void Rasterizer::backward(const DeviceSceneView& scene, const float* v_rgb, DeviceGradsView out,
                          cudaStream_t stream, StageTimer* timer) {
    RADIANT_CHECK(means_count_ == std::size_t(scene.n),
                  "Rasterizer::backward: run forward on this scene first");
    backward_footprints(v_rgb, stream, timer);
    backward_geometry(scene, out, stream, timer);
}

void Rasterizer::backward_footprints(const float* v_rgb, cudaStream_t stream, StageTimer* timer) {
    const std::size_t n = means_count_;
    RADIANT_CHECK(radii_.size() == n, "Rasterizer::backward: run forward first");
    const bool ray = settings_.shading == Shading::ray;
    RasterBwdArgs r{};
    r.fwd = *raster_args_;
    r.v_rgb = v_rgb;
    r.loss_grad_clip = float(settings_.loss_grad_clip);
    r.sm_count = sm_count_;
    r.replay_rows = replay_rows_;
    r.direct_lanes = direct_lanes_;
    zero_footprint_grads(stream);
    if (ray) {
        r.v_ray = v_ray_.data();
    } else {
        r.v_means2d = v_means2d_.data();
        r.v_conics = v_conics_.data();
        r.v_colours = v_colours_.data();
        r.v_opacities = v_opacities_.data();
    }
    launch_raster_bwd(r, stream);
    if (timer) timer->mark(Stage::backward, stream);
}

EwaFootprintGrads Rasterizer::ewa_footprint_grads(int scene_degree) const {
    RADIANT_CHECK(settings_.shading == Shading::ewa && v_means2d_.size() == means_count_,
                  "Rasterizer: no ewa footprint gradients (run an ewa forward and backward_footprints)");
    EwaFootprintGrads g;
    g.ps = project_settings<float>(camera_, settings_, scene_degree);
    g.conic_opacity = conic_opacity_.data();
    g.radii = radii_.data();
    g.v_means2d = v_means2d_.data();
    g.v_conics = v_conics_.data();
    g.v_colours = v_colours_.data();
    g.v_opacities = v_opacities_.data();
    return g;
}

void Rasterizer::backward_geometry(const DeviceSceneView& scene, DeviceGradsView out, cudaStream_t stream,
                                   StageTimer* timer) {
    RADIANT_CHECK(means_count_ == std::size_t(scene.n),
                  "Rasterizer::backward: run forward on this scene first");
    if (settings_.shading == Shading::ray) {
        ProjectRayBwdArgs g{};
        fill_scene_args(scene, g);
        g.ps = project_settings<float>(camera_, settings_, scene.sh_degree);
        g.radii = radii_.data();
        g.mean_opacity = ray_mean_opacity_.data();
        g.v_ray = v_ray_.data();
        fill_grads_args(out, g);
        launch_project_ray_bwd(g, stream);
    } else {
        ProjectBwdArgs g{};
        fill_scene_args(scene, g);
        g.fp = ewa_footprint_grads(scene.sh_degree);
        fill_grads_args(out, g);
        launch_project_ewa_bwd(g, stream);
    }
    if (timer) timer->mark(Stage::geometry, stream);
}

SplatArrays Rasterizer::splat_arrays() {
    const bool ray = settings_.shading == Shading::ray;
    SplatArrays a{};
    a.means2d = ray ? nullptr : means2d_.data();
    a.conic_opacity = ray ? nullptr : conic_opacity_.data();
    a.extent_sq = ray ? nullptr : extent_sq_.data();
    a.depths = depths_.data();
    a.colours = colours_.data();
    a.tile_rects = tile_rects_.data();
    a.radii = radii_.data();
    a.tiles_touched = tiles_touched_.data();
    a.tile_masks = ray ? nullptr : tile_masks_.data();
    a.ray_mean_opacity = ray ? ray_mean_opacity_.data() : nullptr;
    a.ray_whitening = ray ? ray_whitening_.data() : nullptr;
    a.ray_bounds = ray ? ray_bounds_.data() : nullptr;
    return a;
}

SplatGradArrays Rasterizer::splat_grad_arrays() {
    return {v_means2d_.data(), v_conics_.data(), v_colours_.data(), v_opacities_.data(), v_ray_.data()};
}

namespace {

struct KeptByProjection {
    const int* radii;
    __device__ bool operator()(std::uint32_t g) const { return radii[g] > 0; }
};

}  // namespace

std::size_t Rasterizer::gather_visible(DeviceBuffer<std::uint32_t>& index, DeviceBuffer<SplatRecord>& splats,
                                       DeviceBuffer<RayFootprintRecord>& footprints, cudaStream_t stream) {
    RADIANT_CHECK(radii_.size() == means_count_, "Rasterizer::gather_visible: run project first");
    const std::size_t n = means_count_;
    index.resize_discard(n);
    visible_count_.resize_discard(1);
    const thrust::counting_iterator<std::uint32_t> all(0);
    std::size_t bytes = 0;
    RADIANT_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, all, index.data(), visible_count_.data(), n,
                                             KeptByProjection{radii_.data()}, stream));
    scratch_.resize_discard(std::max(scratch_.size(), bytes));
    RADIANT_CUDA_CHECK(cub::DeviceSelect::If(scratch_.data(), bytes, all, index.data(), visible_count_.data(),
                                             n, KeptByProjection{radii_.data()}, stream));
    if (!pinned_count_) RADIANT_CUDA_CHECK(cudaMallocHost(&pinned_count_, 2 * sizeof(std::uint32_t)));
    RADIANT_CUDA_CHECK(cudaMemcpyAsync(pinned_count_, visible_count_.data(), sizeof(std::uint32_t),
                                       cudaMemcpyDeviceToHost, stream));
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::size_t count = pinned_count_[0];
    const bool ray = settings_.shading == Shading::ray;
    splats.resize_discard(count);
    footprints.resize_discard(ray ? count : 0);
    launch_gather_splats(splat_arrays(), index.data(), count, splats.data(),
                         ray ? footprints.data() : nullptr, stream);
    return count;
}

std::size_t Rasterizer::forward_splats(const Camera& camera, const RenderSettings& settings,
                                       const SplatRecord* splats, const RayFootprintRecord* footprints,
                                       std::size_t n, const std::uint32_t* order, cudaStream_t stream) {
    const bool ray = settings.shading == Shading::ray;
    RADIANT_CHECK(n == 0 || (splats != nullptr && (footprints != nullptr) == ray),
                  "Rasterizer::forward_splats: the `ray` model needs one footprint a record, ewa none");
    begin_view(camera, settings, n);
    if (ray) {
        update_rays(camera, settings.tile_size, stream);
        ray_mean_opacity_.resize_discard(n);
        ray_whitening_.resize_discard(9 * n);
        ray_bounds_.resize_discard(n);
    } else {
        means2d_.resize_discard(n);
        conic_opacity_.resize_discard(n);
        extent_sq_.resize_discard(n);
        tile_masks_.resize_discard(n);
    }
    launch_scatter_splats(splats, ray ? footprints : nullptr, order, n, splat_arrays(), stream);
    return rasterise(stream, nullptr, false);
}

void Rasterizer::splat_grads(float* out, const std::uint32_t* order, cudaStream_t stream) {
    const bool ray = settings_.shading == Shading::ray;
    RADIANT_CHECK(ray ? v_ray_.size() == kRayHitSumsSize * means_count_ : v_means2d_.size() == means_count_,
                  "Rasterizer::splat_grads: run backward_footprints first");
    launch_gather_splat_grads(splat_grad_arrays(), ray, means_count_, order, out, stream);
}

void Rasterizer::zero_footprint_grads(cudaStream_t stream) {
    const std::size_t n = means_count_;
    if (settings_.shading == Shading::ray) {
        v_ray_.resize_discard(kRayHitSumsSize * n);
        v_ray_.zero(stream);
        return;
    }
    v_means2d_.resize_discard(n);
    v_conics_.resize_discard(3 * n);
    v_colours_.resize_discard(3 * n);
    v_opacities_.resize_discard(n);
    for (auto* b : {&v_conics_, &v_colours_, &v_opacities_}) b->zero(stream);
    v_means2d_.zero(stream);
}

void Rasterizer::set_splat_grads(const std::uint32_t* index, const float* grads, std::size_t count,
                                 cudaStream_t stream) {
    RADIANT_CHECK(radii_.size() == means_count_, "Rasterizer::set_splat_grads: run project first");
    RADIANT_CHECK(count <= means_count_,
                  "Rasterizer::set_splat_grads: more gradients than projected Gaussians");
    zero_footprint_grads(stream);
    launch_scatter_splat_grads(grads, index, count, means_count_, settings_.shading == Shading::ray,
                               splat_grad_arrays(), stream);
}

Image<float> Rasterizer::download_rgb(cudaStream_t stream) const {
    Image<float> img(width_, height_, 3);
    img.data = rgb_.download(stream);
    return img;
}

void Rasterizer::copy_outputs(float* rgb, float* alpha, int* radii, cudaStream_t stream) const {
    const std::size_t pixels = std::size_t(width_) * std::size_t(height_);
    if (rgb && pixels)
        RADIANT_CUDA_CHECK(
            cudaMemcpyAsync(rgb, rgb_.data(), 3 * pixels * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    if (alpha) launch_alpha_from_transmittance(final_T_.data(), alpha, pixels, stream);
    if (radii && means_count_)
        RADIANT_CUDA_CHECK(cudaMemcpyAsync(radii, radii_.data(), means_count_ * sizeof(int),
                                           cudaMemcpyDeviceToDevice, stream));
}

Image<float> Rasterizer::download_alpha(cudaStream_t stream) const {
    Image<float> img(width_, height_, 1);
    img.data = final_T_.download(stream);
    for (float& a : img.data) a = 1.f - a;
    return img;
}

Image<float> Rasterizer::download_depth(cudaStream_t stream) const {
    RADIANT_CHECK(
        raster_args_->depth != nullptr && depth_.size() == std::size_t(width_) * std::size_t(height_),
        "Rasterizer::download_depth: the last forward did not draw depth");
    Image<float> img(width_, height_, 1);
    img.data = depth_.download(stream);
    return img;
}

Image<float> Rasterizer::download_median_depth(cudaStream_t stream) const {
    RADIANT_CHECK(raster_args_->median_depth != nullptr &&
                      median_depth_.size() == std::size_t(width_) * std::size_t(height_),
                  "Rasterizer::download_median_depth: the last forward did not draw depth");
    Image<float> img(width_, height_, 1);
    img.data = median_depth_.download(stream);
    return img;
}

}  // namespace radiant::cuda
