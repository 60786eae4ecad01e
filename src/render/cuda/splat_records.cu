#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"

namespace radiant::cuda {
namespace {

__global__ void gather_splats_kernel(SplatArrays a, const std::uint32_t* index, std::size_t count,
                                     SplatRecord* out, RayFootprintRecord* ray_out) {
    const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= count) return;
    const std::uint32_t g = index[k];
    SplatRecord r;
    const float2 m = a.means2d ? a.means2d[g] : make_float2(0.f, 0.f);
    const float4 co = a.conic_opacity ? a.conic_opacity[g] : make_float4(0.f, 0.f, 0.f, 0.f);
    r.mean2d[0] = m.x;
    r.mean2d[1] = m.y;
    r.conic_opacity[0] = co.x;
    r.conic_opacity[1] = co.y;
    r.conic_opacity[2] = co.z;
    r.conic_opacity[3] = co.w;
    r.extent_sq = a.extent_sq ? a.extent_sq[g] : 0.f;
    r.depth = a.depths[g];
    for (int c = 0; c < 3; ++c) r.colour[c] = a.colours[3 * std::size_t(g) + c];
    const int4 t = a.tile_rects[g];
    r.rect[0] = t.x;
    r.rect[1] = t.y;
    r.rect[2] = t.z;
    r.rect[3] = t.w;
    r.radius = a.radii[g];
    r.tiles_touched = a.tiles_touched[g];
    r.tile_mask = a.tile_masks ? a.tile_masks[g] : 0u;
    out[k] = r;
    if (!ray_out) return;
    RayFootprintRecord f;
    const float4 mo = a.ray_mean_opacity[g], b = a.ray_bounds[g];
    f.mean_opacity[0] = mo.x;
    f.mean_opacity[1] = mo.y;
    f.mean_opacity[2] = mo.z;
    f.mean_opacity[3] = mo.w;
    for (int i = 0; i < 9; ++i) f.whitening[i] = a.ray_whitening[9 * std::size_t(g) + i];
    f.bounds[0] = b.x;
    f.bounds[1] = b.y;
    f.bounds[2] = b.z;
    f.bounds[3] = b.w;
    ray_out[k] = f;
}

__global__ void scatter_splats_kernel(const SplatRecord* in, const RayFootprintRecord* ray_in,
                                      const std::uint32_t* order, std::size_t count, SplatArrays a) {
    const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= count) return;
    const std::size_t from = order ? order[k] : k;
    const SplatRecord r = in[from];
    if (a.means2d) a.means2d[k] = make_float2(r.mean2d[0], r.mean2d[1]);
    if (a.conic_opacity)
        a.conic_opacity[k] =
            make_float4(r.conic_opacity[0], r.conic_opacity[1], r.conic_opacity[2], r.conic_opacity[3]);
    if (a.extent_sq) a.extent_sq[k] = r.extent_sq;
    a.depths[k] = r.depth;
    for (int c = 0; c < 3; ++c) a.colours[3 * k + c] = r.colour[c];
    a.tile_rects[k] = make_int4(r.rect[0], r.rect[1], r.rect[2], r.rect[3]);
    a.radii[k] = r.radius;
    a.tiles_touched[k] = r.tiles_touched;
    if (a.tile_masks) a.tile_masks[k] = r.tile_mask;
    if (!ray_in) return;
    const RayFootprintRecord f = ray_in[from];
    a.ray_mean_opacity[k] =
        make_float4(f.mean_opacity[0], f.mean_opacity[1], f.mean_opacity[2], f.mean_opacity[3]);
    for (int i = 0; i < 9; ++i) a.ray_whitening[9 * k + i] = f.whitening[i];
    a.ray_bounds[k] = make_float4(f.bounds[0], f.bounds[1], f.bounds[2], f.bounds[3]);
}

__global__ void gather_splat_grads_kernel(SplatGradArrays a, bool ray, std::size_t count,
                                          const std::uint32_t* order, float* out) {
    const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= count) return;
    const std::size_t to = order ? order[k] : k;
    if (ray) {
        for (int i = 0; i < kRayHitSumsSize; ++i)
            out[kRayHitSumsSize * to + i] = a.v_ray[kRayHitSumsSize * k + i];
        return;
    }
    float* o = out + kEwaSplatGradSize * to;
    o[0] = a.v_means2d[k].x;
    o[1] = a.v_means2d[k].y;
    for (int i = 0; i < 3; ++i) {
        o[2 + i] = a.v_conics[3 * k + i];
        o[5 + i] = a.v_colours[3 * k + i];
    }
    o[8] = a.v_opacities[k];
}

__global__ void scatter_splat_grads_kernel(const float* in, const std::uint32_t* index, std::size_t count,
                                           std::size_t entries, bool ray, SplatGradArrays a) {
    const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= count) return;
    const std::size_t g = index[k];
    if (g >= entries) return;
    if (ray) {
        for (int i = 0; i < kRayHitSumsSize; ++i)
            a.v_ray[kRayHitSumsSize * g + i] = in[kRayHitSumsSize * k + i];
        return;
    }
    const float* v = in + kEwaSplatGradSize * k;
    a.v_means2d[g] = make_float2(v[0], v[1]);
    for (int i = 0; i < 3; ++i) {
        a.v_conics[3 * g + i] = v[2 + i];
        a.v_colours[3 * g + i] = v[5 + i];
    }
    a.v_opacities[g] = v[8];
}

}  // namespace

void launch_gather_splats(const SplatArrays& a, const std::uint32_t* index, std::size_t count,
                          SplatRecord* out, RayFootprintRecord* ray_out, cudaStream_t stream) {
    if (count == 0) return;
    gather_splats_kernel<<<blocks_for(count), kBlock1d, 0, stream>>>(a, index, count, out, ray_out);
    RADIANT_CUDA_CHECK_LAUNCH("gather_splats_kernel");
}

void launch_scatter_splats(const SplatRecord* in, const RayFootprintRecord* ray_in,
                           const std::uint32_t* order, std::size_t count, const SplatArrays& a,
                           cudaStream_t stream) {
    if (count == 0) return;
    scatter_splats_kernel<<<blocks_for(count), kBlock1d, 0, stream>>>(in, ray_in, order, count, a);
    RADIANT_CUDA_CHECK_LAUNCH("scatter_splats_kernel");
}

void launch_gather_splat_grads(const SplatGradArrays& a, bool ray, std::size_t count,
                               const std::uint32_t* order, float* out, cudaStream_t stream) {
    if (count == 0) return;
    gather_splat_grads_kernel<<<blocks_for(count), kBlock1d, 0, stream>>>(a, ray, count, order, out);
    RADIANT_CUDA_CHECK_LAUNCH("gather_splat_grads_kernel");
}

void launch_scatter_splat_grads(const float* in, const std::uint32_t* index, std::size_t count,
                                std::size_t entries, bool ray, const SplatGradArrays& a,
                                cudaStream_t stream) {
    if (count == 0) return;
    scatter_splat_grads_kernel<<<blocks_for(count), kBlock1d, 0, stream>>>(in, index, count, entries, ray, a);
    RADIANT_CUDA_CHECK_LAUNCH("scatter_splat_grads_kernel");
}

}  // namespace radiant::cuda
