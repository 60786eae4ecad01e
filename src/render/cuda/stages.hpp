#pragma once
// The CUDA stages of the step, for both shading models (layer-private). Each stage: a plain Args struct of
// pointers and sizes, passed by value, and one launch_<stage>(args, stream) that returns on zero work, sizes
// the grid, launches and checks. Layouts are SoA, one entry per Gaussian [N], pair [P], tile or pixel [H·W].
#include <cuda_runtime_api.h>

#include <cstdint>

#include "radiant/core/distortion.hpp"
#include "radiant/core/project.hpp"
#include "radiant/core/render_settings.hpp"
#include "radiant/render/cuda/gaussian_access.cuh"
#include "radiant/render/splat_record.hpp"

namespace radiant::cuda {

struct ProjectFwdArgs {
    int n = 0, sh_coeffs = 1;  // scene's K
    const float *means, *log_scales, *quats, *opacity_logits, *sh;
    ProjectSettings<float> ps;
    int tiles_x = 0;
    // outputs [N]
    float2* means2d;
    float4* conic_opacity;  // conic a, b, c and opacity
    float* extent_sq;
    float* depths;
    float* colours;  // [N, 3]
    int4* tile_rects;
    int* radii;
    std::uint32_t* tiles_touched;
    std::uint32_t* tile_masks;  // touched tiles of rects up to kMaskTiles tiles (warp_tiles.cuh)
};
void launch_project_ewa_fwd(const ProjectFwdArgs& a, cudaStream_t stream);

struct BinArgs {
    int n = 0, tiles_x = 0, tile_size = 16, width = 0, height = 0;
    const float2* means2d;
    const float4* conic_opacity;
    const float* extent_sq;
    const int4* tile_rects;
    const std::uint32_t* tile_masks;
    const std::uint32_t* order;    // [N] Gaussians by depth (see launch_gather_counts)
    const std::uint32_t* offsets;  // [N] exclusive prefix sum of tiles_touched in that order
    void* isect_keys;              // [P] tile id, 2-byte where short_keys (see TileKeys), else 4-byte
    bool short_keys = false;
    std::uint32_t* isect_gids;  // [P]
};
void launch_bin_tiles(const BinArgs& a, cudaStream_t stream);

// Binning takes the Gaussians in depth order (a stable sort of their depth bits, ties by index): each tile's
// pairs are then written already by (depth, index), so the pair sort needs only the tile bits (2 radix passes
// of 4-byte keys instead of 6 of 8-byte ones) and gives the order a (tile, depth, index) sort would. (Binning
// in index order at offsets laid out in depth order measured slower: its writes scatter.)
void launch_iota(std::uint32_t* out, int n, cudaStream_t stream);
struct GatherCountsArgs {
    int n = 0;
    const std::uint32_t* order;          // [N] Gaussians by depth
    const std::uint32_t* tiles_touched;  // [N] by Gaussian
    std::uint32_t* counts_in_order;      // [N] tiles_touched[order[i]]
};
void launch_gather_counts(const GatherCountsArgs& a, cudaStream_t stream);

// The `ray` model (DESIGN.md §2). Per camera: each pixel's ray and each tile's bounds in the undistorted
// image plane (ray_camera.cu); per Gaussian: the projection and exact silhouette tile count
// (project_ray_fwd.cu), then binning against the tiles' own bounds (bin_tiles.cu).
struct RayCameraArgs {
    int width = 0, height = 0, tile_size = 16, tiles_x = 0, tiles_y = 0;
    double fx = 0, fy = 0, cx = 0, cy = 0;
    Distortion<double> lens;
    // outputs
    float2* pixel_dirs;   // [H·W] ray (x, y, 1) in the camera frame; x = NaN where the lens has no inverse
    float4* tile_bounds;  // [tiles] x0 x1 y0 y1 over the tile's rays (x0 = +inf, x1 = −inf: none)
    float2* col_bounds;   // [tiles_x] x range of a column of tiles
    float2* row_bounds;   // [tiles_y] y range of a row of tiles
};
void launch_ray_camera(const RayCameraArgs& a, cudaStream_t stream);

struct ProjectRayFwdArgs {
    int n = 0, sh_coeffs = 1;
    const float *means, *log_scales, *quats, *opacity_logits, *sh;
    ProjectSettings<float> ps;
    int tiles_x = 0, tiles_y = 0;
    const float4* tile_bounds;
    const float2 *col_bounds, *row_bounds;
    // outputs [N]
    float4* mean_opacity;  // camera-frame mean, opacity
    float* whitening;      // [N, 9] camera-frame L_c, row-major
    float4* bounds;        // silhouette x0 x1 y0 y1 (±inf when unbounded)
    float* depths;
    float* colours;  // [N, 3]
    int4* tile_rects;
    int* radii;
    std::uint32_t* tiles_touched;
};
void launch_project_ray_fwd(const ProjectRayFwdArgs& a, cudaStream_t stream);

struct BinRayArgs {
    int n = 0, tiles_x = 0;
    const float4* bounds;
    const int4* tile_rects;
    const float4* tile_bounds;
    const std::uint32_t* order;  // as BinArgs
    const std::uint32_t* offsets;
    void* isect_keys;  // as BinArgs
    bool short_keys = false;
    std::uint32_t* isect_gids;
};
void launch_bin_ray_tiles(const BinRayArgs& a, cudaStream_t stream);

// Tile ids are sorted as 2-byte keys when the grid has at most 65,536 tiles (up to 2048×2048 pixels at
// 8-pixel tiles): a quarter less memory traffic per radix pass than 4-byte keys, the pair sort's floor.
inline bool short_tile_keys(std::size_t tiles) {
    return tiles <= 65536;
}

struct TileRangeArgs {
    std::size_t pairs = 0;
    const void* sorted_keys;  // tile ids, as BinArgs
    bool short_keys = false;
    uint2* tile_ranges;  // [tiles], zeroed by the caller
};
void launch_tile_ranges(const TileRangeArgs& a, cudaStream_t stream);

// alpha = 1 − final transmittance, per pixel [H·W], into memory the caller owns (the C API's outputs).
void launch_alpha_from_transmittance(const float* final_T, float* alpha, std::size_t pixels,
                                     cudaStream_t stream);

struct RasterFwdArgs {
    Shading shading = Shading::ewa;
    int width = 0, height = 0, tile_size = 16, tiles_x = 0, tiles_y = 0;
    const uint2* tile_ranges;
    const std::uint32_t* isect_gids;
    const float* colours;
    // `ewa` [N]
    const float2* means2d;
    const float4* conic_opacity;
    const float* extent_sq;
    // `ray`: [N] as ProjectRayFwdArgs, [H·W] as RayCameraArgs
    const float4* ray_mean_opacity;
    const float* ray_whitening;
    const float2* pixel_dirs;
    float alpha_cutoff, transmittance_threshold;
    int max_splat_steps;  // 0 = unlimited
    float3 background;
    int trace_stride;  // trace mode: hits stored per pixel; 0 in replay mode
    // outputs [H·W]
    float* rgb;  // [H·W, 3]
    float* final_T;
    std::int32_t* n_hits;
    std::int32_t* last_isect;
    std::int32_t* hit_gids;  // [H·W, stride] (trace mode)
    float* hit_alphas;
    float* hit_T;
    // Depth (radiant render --depth): each Gaussian's camera z [N] in, Σ w·z / Σ w per pixel [H·W] out; both
    // null in training, which runs a kernel without it.
    const float* depths;
    float* depth;
    float* median_depth;
};
void launch_raster_fwd(const RasterFwdArgs& a, cudaStream_t stream);

struct RasterBwdArgs {
    RasterFwdArgs fwd;   // the forward's inputs and trace
    const float* v_rgb;  // [H·W, 3]
    float loss_grad_clip;
    int sm_count = 1;     // the device's, to size the replay's pixels per thread
    int replay_rows = 0;  // 0: by tile count and sm_count; else forced (tests)
    // An entry hit by at most this many lanes of a warp is added by those lanes' own atomics instead of the
    // warp's shuffle reduction (45 shuffles and adds for `ewa`'s 9 values): 0 always reduces.
    int direct_lanes = 0;
    // outputs [N], accumulated (zeroed by the caller). `ewa`:
    float2* v_means2d;
    float* v_conics;   // [N, 3]
    float* v_colours;  // [N, 3]
    float* v_opacities;
    // `ray`: [N, kRayHitSumsSize], each Gaussian's RayHitSums (core/ray_project.hpp's store_ray_hit_sums)
    float* v_ray;
};
void launch_raster_bwd(const RasterBwdArgs& a, cudaStream_t stream);

struct ProjectBwdArgs {
    int n = 0, sh_coeffs = 1;
    const float *means, *log_scales, *quats, *opacity_logits, *sh;
    EwaFootprintGrads fp;  // the raster backward's footprint gradients and the projection settings
    // outputs [N, …], overwritten; g_sh_sources not null: written instead of g_sh (DeviceGradsView)
    float *g_means, *g_log_scales, *g_quats, *g_opacity_logits, *g_sh, *g_sh_sources;
    float* mean2d_grad_norms;
    double* camera_grads;  // [6] added into when not null: the camera pose gradient (ε, τ)
};
void launch_project_ewa_bwd(const ProjectBwdArgs& a, cudaStream_t stream);

struct ProjectRayBwdArgs {
    int n = 0, sh_coeffs = 1;
    const float *means, *log_scales, *quats, *opacity_logits, *sh;
    ProjectSettings<float> ps;
    const int* radii;
    const float4* mean_opacity;
    const float* v_ray;  // [N, kRayHitSumsSize]
    // outputs [N, …], overwritten; g_sh_sources not null: written instead of g_sh (DeviceGradsView)
    float *g_means, *g_log_scales, *g_quats, *g_opacity_logits, *g_sh, *g_sh_sources;
    float* mean2d_grad_norms;
    double* camera_grads;  // [6] added into when not null: the camera pose gradient (ε, τ)
};
void launch_project_ray_bwd(const ProjectRayBwdArgs& a, cudaStream_t stream);

// Gaussian-parallel training (issue 25): projected Gaussians out of and into the per-Gaussian arrays as
// records (render/splat_record.hpp), and their raster gradients likewise. The `ray` arrays are null for ewa.
struct SplatArrays {
    float2* means2d;
    float4* conic_opacity;
    float* extent_sq;
    float* depths;
    float* colours;  // [N, 3]
    int4* tile_rects;
    int* radii;
    std::uint32_t* tiles_touched;
    std::uint32_t* tile_masks;  // ewa
    float4* ray_mean_opacity;   // ray
    float* ray_whitening;       // ray [N, 9]
    float4* ray_bounds;         // ray
};
// out[k] = the Gaussian index[k]'s record (ray_out: its footprint, with the `ray` arrays).
void launch_gather_splats(const SplatArrays& a, const std::uint32_t* index, std::size_t count,
                          SplatRecord* out, RayFootprintRecord* ray_out, cudaStream_t stream);
// Record order[k] (k where `order` is null) into entry k of the arrays.
void launch_scatter_splats(const SplatRecord* in, const RayFootprintRecord* ray_in,
                           const std::uint32_t* order, std::size_t count, const SplatArrays& a,
                           cudaStream_t stream);

struct SplatGradArrays {
    float2* v_means2d;  // ewa
    float *v_conics, *v_colours, *v_opacities;
    float* v_ray;  // ray [N, kRayHitSumsSize]
};
// out[order[k]] (out[k] where `order` is null; splat_grad_size floats) = entry k's gradient.
void launch_gather_splat_grads(const SplatGradArrays& a, bool ray, std::size_t count,
                               const std::uint32_t* order, float* out, cudaStream_t stream);
// Entry index[k] = in[k]'s gradient (the others as they were: zeroed by the caller); indices of `entries` or
// more are skipped.
void launch_scatter_splat_grads(const float* in, const std::uint32_t* index, std::size_t count,
                                std::size_t entries, bool ray, const SplatGradArrays& a, cudaStream_t stream);

constexpr int kBlock1d = 256;

// One Gaussian's gradient entries into a geometry backward's outputs (g_means … g_sh, or g_sh_sources when
// kShSources, mean2d_grad_norms).
template <bool kShSources, class Args>
__device__ __forceinline__ void store_gaussian_grads(const Args& a, int g, const GaussianGrads<float>& r,
                                                     const float* v_sh, const ShGradSource<float>& sh_source,
                                                     float mean2d_grad_norm) {
    if constexpr (kShSources) {
        float* s = a.g_sh_sources + 6 * std::size_t(g);
        for (int c = 0; c < 3; ++c) {
            s[c] = sh_source.v_colour[c];
            s[3 + c] = sh_source.dir[c];
        }
    } else {
        store_sh(v_sh, 3 * a.sh_coeffs, a.g_sh + std::size_t(g) * std::size_t(3 * a.sh_coeffs));
    }
    for (int c = 0; c < 3; ++c) {
        a.g_means[3 * g + c] = r.v_mean[c];
        a.g_log_scales[3 * g + c] = r.v_log_scale[c];
    }
    a.g_quats[4 * g] = r.v_quat.x;
    a.g_quats[4 * g + 1] = r.v_quat.y;
    a.g_quats[4 * g + 2] = r.v_quat.z;
    a.g_quats[4 * g + 3] = r.v_quat.w;
    a.g_opacity_logits[g] = r.v_opacity_logit;
    a.mean2d_grad_norms[g] = mean2d_grad_norm;
}

inline unsigned blocks_for(std::size_t n, int block = kBlock1d) {
    return unsigned((n + std::size_t(block) - 1) / std::size_t(block));
}

}  // namespace radiant::cuda
