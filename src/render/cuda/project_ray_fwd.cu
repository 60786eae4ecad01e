#include "radiant/core/ray_project.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"

namespace radiant::cuda {
namespace {

// One thread per Gaussian: the shared core projection for the `ray` model, the rect of tile rows and
// columns its silhouette meets, and the exact count of tiles whose own bounds it meets (what binning
// writes). Reads the parameters and the camera's tile bounds; writes every per-Gaussian output (culled
// Gaussians: radius 0, no tiles). A Gaussian's SH (192 of its 236 bytes) are read only once its footprint
// meets a tile.
__global__ void project_ray_fwd_kernel(ProjectRayFwdArgs a) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= a.n) return;
    GaussianParams<float> p = load_gaussian_geometry(a, g);
    RayFootprint<float> f;
    TileRect rect{};
    if (project_ray_footprint(p, a.ps, f))
        rect = ray_tile_rect(f.bounds, reinterpret_cast<const float*>(a.col_bounds), a.tiles_x,
                             reinterpret_cast<const float*>(a.row_bounds), a.tiles_y);
    if (!rect.empty()) {
        float sh[3 * kMaxShCoeffs];
        load_gaussian_sh(a, g, sh);
        p.sh = sh;
        if (!footprint_colour(p, a.ps, f)) rect = TileRect{};
    }
    if (rect.empty()) {
        a.radii[g] = 0;
        a.tiles_touched[g] = 0;
        a.tile_rects[g] = make_int4(0, 0, 0, 0);
        return;
    }
    const int touched = for_each_ray_tile(f.bounds, rect, reinterpret_cast<const float*>(a.tile_bounds),
                                          a.tiles_x, [](int) {});
    a.mean_opacity[g] = make_float4(f.mean_cam.x, f.mean_cam.y, f.mean_cam.z, f.opacity);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) a.whitening[9 * g + 3 * i + j] = f.whitening_cam.m[i][j];
    // An unbounded silhouette as infinite bounds: binning's test then passes every tile of the rect, as
    // for_each_ray_tile does for Silhouette::unbounded.
    a.bounds[g] = f.bounds.kind == Silhouette::bounded
                      ? make_float4(f.bounds.x0, f.bounds.x1, f.bounds.y0, f.bounds.y1)
                      : make_float4(-INFINITY, INFINITY, -INFINITY, INFINITY);
    a.depths[g] = f.depth;
    a.colours[3 * g] = f.colour.x;
    a.colours[3 * g + 1] = f.colour.y;
    a.colours[3 * g + 2] = f.colour.z;
    a.tile_rects[g] = make_int4(rect.x0, rect.y0, rect.x1, rect.y1);
    a.radii[g] = f.radius;
    a.tiles_touched[g] = std::uint32_t(touched);
}

}  // namespace

void launch_project_ray_fwd(const ProjectRayFwdArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    project_ray_fwd_kernel<<<blocks_for(std::size_t(a.n)), kBlock1d, 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("project_ray_fwd_kernel");
}

}  // namespace radiant::cuda
