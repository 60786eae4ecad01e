#include <cmath>

#include "radiant/core/ray_model.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"

namespace radiant::cuda {
namespace {

constexpr int kMaxBlock = 256;  // 16×16 tiles

// One block per tile, one thread per pixel: the pixel's ray through the lens model, solved in double as
// the CPU reference does (in float the Newton undistortion stalls above its convergence test), stored in
// float; then the block's min/max over its valid rays. Writes pixel_dirs and tile_bounds.
__global__ void __launch_bounds__(kMaxBlock) ray_camera_kernel(RayCameraArgs a) {
    __shared__ float lo_x[kMaxBlock], hi_x[kMaxBlock], lo_y[kMaxBlock], hi_y[kMaxBlock];
    const int x = blockIdx.x * a.tile_size + threadIdx.x, y = blockIdx.y * a.tile_size + threadIdx.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, block = blockDim.x * blockDim.y;
    lo_x[tid] = lo_y[tid] = INFINITY;
    hi_x[tid] = hi_y[tid] = -INFINITY;
    if (x < a.width && y < a.height) {
        Vec3<double> ray;
        float2 dir = make_float2(NAN, NAN);
        if (camera_ray(a.fx, a.fy, a.cx, a.cy, a.lens, double(x), double(y), ray)) {
            dir = make_float2(float(ray.x), float(ray.y));
            lo_x[tid] = hi_x[tid] = dir.x;
            lo_y[tid] = hi_y[tid] = dir.y;
        }
        a.pixel_dirs[std::size_t(y) * std::size_t(a.width) + std::size_t(x)] = dir;
    }
    __syncthreads();
    for (int stride = block / 2; stride > 0; stride /= 2) {  // block is a power of two (8² or 16²)
        if (tid < stride) {
            lo_x[tid] = fminf(lo_x[tid], lo_x[tid + stride]);
            hi_x[tid] = fmaxf(hi_x[tid], hi_x[tid + stride]);
            lo_y[tid] = fminf(lo_y[tid], lo_y[tid + stride]);
            hi_y[tid] = fmaxf(hi_y[tid], hi_y[tid + stride]);
        }
        __syncthreads();
    }
    if (tid == 0)
        a.tile_bounds[blockIdx.y * a.tiles_x + blockIdx.x] = make_float4(lo_x[0], hi_x[0], lo_y[0], hi_y[0]);
}

// One thread per column of tiles, then one per row: the union of its tiles' bounds (what ray_tile_rect
// searches).
__global__ void ray_tile_lines_kernel(RayCameraArgs a) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a.tiles_x) {
        float lo = INFINITY, hi = -INFINITY;
        for (int ty = 0; ty < a.tiles_y; ++ty) {
            const float4 b = a.tile_bounds[ty * a.tiles_x + i];
            lo = fminf(lo, b.x);
            hi = fmaxf(hi, b.y);
        }
        a.col_bounds[i] = make_float2(lo, hi);
    } else if (i < a.tiles_x + a.tiles_y) {
        const int ty = i - a.tiles_x;
        float lo = INFINITY, hi = -INFINITY;
        for (int tx = 0; tx < a.tiles_x; ++tx) {
            const float4 b = a.tile_bounds[ty * a.tiles_x + tx];
            lo = fminf(lo, b.z);
            hi = fmaxf(hi, b.w);
        }
        a.row_bounds[ty] = make_float2(lo, hi);
    }
}

}  // namespace

void launch_ray_camera(const RayCameraArgs& a, cudaStream_t stream) {
    if (a.width == 0 || a.height == 0) return;
    RADIANT_CHECK(a.tile_size == 8 || a.tile_size == 16, "CUDA ray camera: tile_size must be 8 or 16");
    ray_camera_kernel<<<dim3(unsigned(a.tiles_x), unsigned(a.tiles_y)),
                        dim3(unsigned(a.tile_size), unsigned(a.tile_size)), 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("ray_camera_kernel");
    ray_tile_lines_kernel<<<blocks_for(std::size_t(a.tiles_x + a.tiles_y)), kBlock1d, 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("ray_tile_lines_kernel");
}

}  // namespace radiant::cuda
