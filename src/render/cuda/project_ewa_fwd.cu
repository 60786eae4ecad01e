#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"
#include "warp_tiles.cuh"

namespace radiant::cuda {
namespace {

// One thread per Gaussian: the shared core projection, then the tiles it touches, tested by the warp together
// (warp_tiles.cuh): their count, and for rects of up to kMaskTiles tiles their mask, which binning lists
// without testing again. Reads the parameters (the SH of kept Gaussians only: 192 of a Gaussian's 236 bytes,
// and a view culls about half of a scene); writes every per-Gaussian output (culled Gaussians: radius 0, no
// tiles).
__global__ void project_ewa_fwd_kernel(ProjectFwdArgs a) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    Footprint<float> f{};
    bool visible = false;
    if (g < a.n) {
        GaussianParams<float> p = load_gaussian_geometry(a, g);
        visible = project_ewa_footprint(p, a.ps, f);
        if (visible) {
            float sh[3 * kMaxShCoeffs];
            load_gaussian_sh(a, g, sh);
            p.sh = sh;
            visible = footprint_colour(p, a.ps, f);
        }
        if (!visible) {
            a.radii[g] = 0;
            a.tiles_touched[g] = 0;
            a.tile_masks[g] = 0;
            a.tile_rects[g] = make_int4(0, 0, 0, 0);
        }
    }
    const int width = a.ps.cam.width, height = a.ps.cam.height;
    const unsigned mask = warp_touched_tile_masks(visible, f, a.ps.tile_size, width, height);
    const int large = warp_walk_large_rects(visible, f, a.ps.tile_size, a.tiles_x, width, height, 0, 0,
                                            [](std::uint32_t, int, std::uint32_t) {});
    if (!visible) return;
    a.means2d[g] = make_float2(f.mean2d.x, f.mean2d.y);
    a.conic_opacity[g] = make_float4(f.conic.a, f.conic.b, f.conic.c, f.opacity);
    a.extent_sq[g] = f.extent_sq;
    a.depths[g] = f.depth;
    a.colours[3 * g] = f.colour.x;
    a.colours[3 * g + 1] = f.colour.y;
    a.colours[3 * g + 2] = f.colour.z;
    a.tile_rects[g] = make_int4(f.rect.x0, f.rect.y0, f.rect.x1, f.rect.y1);
    a.radii[g] = f.radius;  // as the CPU reference: visible when its box holds a pixel centre
    a.tiles_touched[g] = std::uint32_t(f.rect.count() <= kMaskTiles ? __popc(mask) : large);
    a.tile_masks[g] = mask;
}

}  // namespace

void launch_project_ewa_fwd(const ProjectFwdArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    project_ewa_fwd_kernel<<<blocks_for(std::size_t(a.n)), kBlock1d, 0, stream>>>(a);
    RADIANT_CUDA_CHECK_LAUNCH("project_ewa_fwd_kernel");
}

}  // namespace radiant::cuda
