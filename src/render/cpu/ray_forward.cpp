// CPU reference forward for the `ray` model (ray_forward.hpp).
#include "radiant/render/cpu/ray_forward.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>

#include "composite_tiles.hpp"
#include "radiant/core/composite.hpp"
#include "radiant/core/densify_rules.hpp"
#include "radiant/core/distortion.hpp"
#include "radiant/core/error.hpp"
#include "radiant/core/ray_model.hpp"
#include "radiant/core/ray_project.hpp"
#include "radiant/core/sh.hpp"

namespace radiant::cpu {

template <class T>
RayCamera<T> ray_camera(const Camera& camera, const TileGrid& grid) {
    RayCamera<T> r;
    const int w = grid.width, h = grid.height;
    r.dirs.assign(std::size_t(w) * std::size_t(h), {});
    r.valid.assign(r.dirs.size(), 0);
    // Rays are solved in double whatever T is: in float the Newton undistortion stalls at rounding level
    // above its convergence test and ~2 % of a phone camera's pixels (fox) would get no ray.
    const Distortion<double> d = distortion_of<double>(camera);
    const T inf = std::numeric_limits<T>::infinity();
    r.tile_bounds.assign(4 * std::size_t(grid.tile_count()), T(0));
    for (std::size_t t = 0; t < std::size_t(grid.tile_count()); ++t) {
        r.tile_bounds[4 * t] = r.tile_bounds[4 * t + 2] = inf;
        r.tile_bounds[4 * t + 1] = r.tile_bounds[4 * t + 3] = -inf;
    }
#pragma omp parallel for schedule(dynamic)
    for (int tile = 0; tile < grid.tile_count(); ++tile) {
        const int tx = tile % grid.tiles_x, ty = tile / grid.tiles_x, ts = grid.tile_size;
        T* b = r.tile_bounds.data() + 4 * std::size_t(tile);
        for (int y = ty * ts; y < std::min(h, (ty + 1) * ts); ++y)
            for (int x = tx * ts; x < std::min(w, (tx + 1) * ts); ++x) {
                const std::size_t pix = std::size_t(y) * std::size_t(w) + std::size_t(x);
                Vec3<double> ray;
                if (!camera_ray(camera.fx, camera.fy, camera.cx, camera.cy, d, double(x), double(y), ray))
                    continue;
                const Vec3<T> dir = cast<T>(ray);
                r.dirs[pix] = dir;
                r.valid[pix] = 1;
                b[0] = std::min(b[0], dir.x), b[1] = std::max(b[1], dir.x);
                b[2] = std::min(b[2], dir.y), b[3] = std::max(b[3], dir.y);
            }
    }
    r.col_bounds.assign(2 * std::size_t(grid.tiles_x), T(0));
    r.row_bounds.assign(2 * std::size_t(grid.tiles_y), T(0));
    for (int i = 0; i < grid.tiles_x; ++i)
        r.col_bounds[2 * std::size_t(i)] = inf, r.col_bounds[2 * std::size_t(i) + 1] = -inf;
    for (int i = 0; i < grid.tiles_y; ++i)
        r.row_bounds[2 * std::size_t(i)] = inf, r.row_bounds[2 * std::size_t(i) + 1] = -inf;
    for (int tile = 0; tile < grid.tile_count(); ++tile) {
        const std::size_t tx = std::size_t(tile % grid.tiles_x), ty = std::size_t(tile / grid.tiles_x);
        const T* b = r.tile_bounds.data() + 4 * std::size_t(tile);
        r.col_bounds[2 * tx] = std::min(r.col_bounds[2 * tx], b[0]);
        r.col_bounds[2 * tx + 1] = std::max(r.col_bounds[2 * tx + 1], b[1]);
        r.row_bounds[2 * ty] = std::min(r.row_bounds[2 * ty], b[2]);
        r.row_bounds[2 * ty + 1] = std::max(r.row_bounds[2 * ty + 1], b[3]);
    }
    return r;
}

template <class T>
void project_ray(const SceneT<T>& scene, const Camera& camera, const RenderSettings& settings,
                 const RayCamera<T>& rays, const TileGrid& grid, Projected<T>& out, RayProjected<T>& ray) {
    const std::size_t n = scene.size();
    out.means2d.assign(n, {});
    out.conics.assign(n, {});
    out.depths.assign(n, T(0));
    out.opacities.assign(n, T(0));
    out.extent_sq.assign(n, T(0));
    out.colours.assign(n, {});
    out.tile_rects.assign(n, {});
    out.radii.assign(n, 0);
    ray.means.assign(n, {});
    ray.whitening.assign(n, {});
    ray.bounds.assign(n, {});
    const ProjectSettings<T> ps = project_settings<T>(camera, settings, scene.sh_degree);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < std::int64_t(n); ++i) {
        const std::size_t g = std::size_t(i);
        RayFootprint<T> f;
        if (!project_ray_gaussian(gaussian_params(scene, g), ps, f)) continue;
        const TileRect rect = ray_tile_rect(f.bounds, rays.col_bounds.data(), grid.tiles_x,
                                            rays.row_bounds.data(), grid.tiles_y);
        if (rect.empty()) continue;
        out.depths[g] = f.depth;
        out.opacities[g] = f.opacity;
        out.colours[g] = f.colour;
        out.tile_rects[g] = rect;
        out.radii[g] = f.radius;
        ray.means[g] = f.mean_cam;
        ray.whitening[g] = f.whitening_cam;
        ray.bounds[g] = f.bounds;
    }
}

template <class T>
void bin_ray(const Projected<T>& pr, const RayProjected<T>& ray, const RayCamera<T>& rays,
             const TileGrid& grid, TileLists& lists) {
    // Every tile of the rect whose own undistorted bounds meet the silhouette (unbounded: all of them).
    const std::size_t n = pr.size();
    std::vector<std::pair<std::uint64_t, std::int32_t>> items;
    for (std::size_t g = 0; g < n; ++g) {
        if (!pr.visible(g)) continue;
        const std::uint64_t depth_bits = std::bit_cast<std::uint32_t>(float(pr.depths[g]));
        for_each_ray_tile(ray.bounds[g], pr.tile_rects[g], rays.tile_bounds.data(), grid.tiles_x,
                          [&](int tile) {
                              items.push_back({(std::uint64_t(tile) << 32) | depth_bits, std::int32_t(g)});
                          });
    }
    std::sort(items.begin(), items.end());
    fill_tile_lists(items, grid.tile_count(), lists);
}

template <class T>
void raster_ray(const Projected<T>& pr, const RayProjected<T>& ray, const RayCamera<T>& rays,
                const RenderSettings& settings, ForwardResult<T>& out) {
    // As `ewa`'s raster, with α from each Gaussian's peak along the pixel's ray.
    const T cutoff = T(settings.alpha_cutoff);
    composite_tiles(
        pr, out.lists, out.grid, settings, out, [&](std::size_t g, int, int, std::size_t pix, T& alpha) {
            if (!rays.valid[pix]) return false;
            const RayResponse<T> h =
                ray_response(ray.whitening[g], ray.means[g], pr.opacities[g], Vec3<T>{}, rays.dirs[pix]);
            alpha = std::min(h.alpha, T(kMaxAlpha));
            return h.in_front && alpha >= cutoff;
        });
}

template <class T>
ForwardResult<T> render_forward_ray(const SceneT<T>& scene, const Camera& camera,
                                    const RenderSettings& settings) {
    validate(settings);
    validate(camera, camera.name.empty() ? "camera" : "camera " + camera.name);
    const std::size_t nk = scene.size() * std::size_t(scene.sh_coeffs());
    RADIANT_CHECK(scene.means.size() == 3 * scene.size() && scene.log_scales.size() == 3 * scene.size() &&
                      scene.quats.size() == 4 * scene.size() && scene.sh.size() == 3 * nk,
                  "scene arrays disagree with its Gaussian count");
    ForwardResult<T> out;
    out.grid = TileGrid(camera.width, camera.height, settings.tile_size);
    const RayCamera<T> rays = ray_camera<T>(camera, out.grid);
    RayProjected<T> ray;
    project_ray(scene, camera, settings, rays, out.grid, out.projected, ray);
    bin_ray(out.projected, ray, rays, out.grid, out.lists);
    raster_ray(out.projected, ray, rays, settings, out);
    return out;
}

template <class T>
std::vector<RayHitSums<T>> raster_bwd_ray(const ForwardResult<T>& fwd, const RayProjected<T>& ray,
                                          const RayCamera<T>& rays, const Image<T>& v_rgb,
                                          const RenderSettings& settings) {
    const TileGrid& grid = fwd.grid;
    const Projected<T>& pr = fwd.projected;
    const TileLists& lists = fwd.lists;
    RADIANT_CHECK(v_rgb.width == grid.width && v_rgb.height == grid.height && v_rgb.channels == 3,
                  "render_backward_ray: the pixel gradient's size differs from the render's");
    const T cutoff = T(settings.alpha_cutoff), grad_clip = T(settings.loss_grad_clip);
    const Vec3<T> bg{T(settings.background[0]), T(settings.background[1]), T(settings.background[2])};
    const int w = grid.width, h = grid.height, ts = grid.tile_size;
    auto clip = [&](T v) { return grad_clip > T(0) ? std::clamp(v, -grad_clip, grad_clip) : v; };

    // Each pixel re-walks its tile's list up to its last composited entry (replay: the forward's hits, not a
    // re-render), then back to front DESIGN.md §2's compositing gradient and each hit's camera-frame share
    // (add_ray_hit) into the sums of its list entry — one tile's entries belong to it alone, so tiles run in
    // parallel without shared writes.
    std::vector<RayHitSums<T>> pair(lists.pairs());
    struct Hit {
        std::int32_t pos;
        RayResponse<T> h;
        T alpha, trans;
    };
#pragma omp parallel for schedule(dynamic)
    for (int tile = 0; tile < grid.tile_count(); ++tile) {
        const int tx = tile % grid.tiles_x, ty = tile / grid.tiles_x;
        const std::int32_t start = lists.tile_ranges[2 * std::size_t(tile)];
        std::vector<Hit> hits;
        for (int y = ty * ts; y < (ty + 1) * ts && y < h; ++y)
            for (int x = tx * ts; x < (tx + 1) * ts && x < w; ++x) {
                const std::size_t pix = std::size_t(y) * std::size_t(w) + std::size_t(x);
                if (!rays.valid[pix]) continue;
                const Vec3<T> dir = rays.dirs[pix];
                hits.clear();
                T trans = T(1);
                for (std::int32_t i = start; i < fwd.trace.last_isect[pix]; ++i) {
                    const std::size_t g = std::size_t(lists.isect_gids[std::size_t(i)]);
                    const RayResponse<T> r =
                        ray_response(ray.whitening[g], ray.means[g], pr.opacities[g], Vec3<T>{}, dir);
                    const T alpha = std::min(r.alpha, T(kMaxAlpha));
                    if (!r.in_front || alpha < cutoff) continue;
                    hits.push_back({i, r, alpha, trans});
                    trans *= T(1) - alpha;
                }
                const Vec3<T> v{clip(v_rgb.data[3 * pix]), clip(v_rgb.data[3 * pix + 1]),
                                clip(v_rgb.data[3 * pix + 2])};
                Vec3<T> behind = bg;  // D: the colour behind the current hit
                for (std::size_t j = hits.size(); j-- > 0;) {
                    const Hit& hit = hits[j];
                    const std::size_t g = std::size_t(lists.isect_gids[std::size_t(hit.pos)]);
                    const Vec3<T> col = pr.colours[g];
                    // The clamp at 0.99 passes no gradient to α (as `ewa`'s splat_alpha_vjp).
                    const T v_alpha = hit.h.alpha >= T(kMaxAlpha) ? T(0) : hit.trans * dot(col - behind, v);
                    RayHitSums<T>& sums = pair[std::size_t(hit.pos)];
                    sums.v_colour += (hit.trans * hit.alpha) * v;
                    add_ray_hit(hit.h, dir, v_alpha, sums);
                    behind = hit.alpha * col + (T(1) - hit.alpha) * behind;
                }
            }
    }

    // Per Gaussian: its entries' sums in list order (deterministic).
    std::vector<RayHitSums<T>> sums(pr.size());
    for (std::size_t i = 0; i < lists.pairs(); ++i) sums[std::size_t(lists.isect_gids[i])] += pair[i];
    return sums;
}

template <class T>
void project_ray_bwd(const SceneT<T>& scene, const Camera& camera, const RenderSettings& settings,
                     const Projected<T>& pr, const RayProjected<T>& ray,
                     const std::vector<RayHitSums<T>>& sums, SceneGradsT<T>& out) {
    const std::size_t n = scene.size(), k3 = std::size_t(scene.sh_coeffs()) * 3;
    RADIANT_CHECK(pr.size() == n && sums.size() == n, "project_ray_bwd: the projection and sums disagree");
    out.sh_degree = scene.sh_degree;
    out.means.assign(3 * n, T(0));
    out.log_scales.assign(3 * n, T(0));
    out.quats.assign(4 * n, T(0));
    out.opacity_logits.assign(n, T(0));
    out.sh.assign(k3 * n, T(0));
    out.mean2d_grad_norms.assign(n, T(0));
    out.visible.assign(n, 0);
    for (std::size_t g = 0; g < n; ++g) out.visible[g] = pr.visible(g) ? 1 : 0;
    const ProjectSettings<T> ps = project_settings<T>(camera, settings, scene.sh_degree);
    std::vector<CameraGrads<T>> cam(n, CameraGrads<T>{});
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < std::int64_t(n); ++i) {
        const std::size_t g = std::size_t(i);
        if (!pr.visible(g)) continue;
        Vec3<T> v_mean_cam;
        const GaussianGrads<T> r = project_ray_gaussian_vjp(gaussian_params(scene, g), ps, sums[g],
                                                            out.sh.data() + g * k3, v_mean_cam, &cam[g]);
        for (int c = 0; c < 3; ++c) {
            out.means[3 * g + std::size_t(c)] = r.v_mean[c];
            out.log_scales[3 * g + std::size_t(c)] = r.v_log_scale[c];
        }
        for (int c = 0; c < 4; ++c) out.quats[4 * g + std::size_t(c)] = r.v_quat[c];
        out.opacity_logits[g] = r.v_opacity_logit;
        const Vec2<T> v2 = ray_mean2d_grad(ray.means[g], v_mean_cam, T(camera.fx), T(camera.fy));
        out.mean2d_grad_norms[g] = mean2d_grad_norm(v2, camera.width, camera.height);
    }
    for (const CameraGrads<T>& c : cam) {
        out.camera_rot += c.v_rot;
        out.camera_trans += c.v_trans;
    }
}

template <class T>
SceneGradsT<T> render_backward_ray(const SceneT<T>& scene, const Camera& camera,
                                   const RenderSettings& settings, const ForwardResult<T>& fwd,
                                   const Image<T>& v_rgb) {
    // The forward's record holds no rays or camera-frame footprints: both are made again (the same floats).
    const RayCamera<T> rays = ray_camera<T>(camera, fwd.grid);
    RayProjected<T> ray;
    Projected<T> unused;
    project_ray(scene, camera, settings, rays, fwd.grid, unused, ray);
    SceneGradsT<T> out;
    project_ray_bwd(scene, camera, settings, fwd.projected, ray,
                    raster_bwd_ray(fwd, ray, rays, v_rgb, settings), out);
    return out;
}

#define RADIANT_RAY_STAGES(T)                                                                              \
    template void bin_ray<T>(const Projected<T>&, const RayProjected<T>&, const RayCamera<T>&,             \
                             const TileGrid&, TileLists&);                                                 \
    template void raster_ray<T>(const Projected<T>&, const RayProjected<T>&, const RayCamera<T>&,          \
                                const RenderSettings&, ForwardResult<T>&);                                 \
    template std::vector<RayHitSums<T>> raster_bwd_ray<T>(const ForwardResult<T>&, const RayProjected<T>&, \
                                                          const RayCamera<T>&, const Image<T>&,            \
                                                          const RenderSettings&);                          \
    template void project_ray_bwd<T>(const SceneT<T>&, const Camera&, const RenderSettings&,               \
                                     const Projected<T>&, const RayProjected<T>&,                          \
                                     const std::vector<RayHitSums<T>>&, SceneGradsT<T>&);
RADIANT_RAY_STAGES(float)
RADIANT_RAY_STAGES(double)
#undef RADIANT_RAY_STAGES
template RayCamera<float> ray_camera<float>(const Camera&, const TileGrid&);
template RayCamera<double> ray_camera<double>(const Camera&, const TileGrid&);
template ForwardResult<float> render_forward_ray<float>(const SceneT<float>&, const Camera&,
                                                        const RenderSettings&);
template SceneGradsT<float> render_backward_ray<float>(const SceneT<float>&, const Camera&,
                                                       const RenderSettings&, const ForwardResult<float>&,
                                                       const Image<float>&);
template SceneGradsT<double> render_backward_ray<double>(const SceneT<double>&, const Camera&,
                                                         const RenderSettings&, const ForwardResult<double>&,
                                                         const Image<double>&);
template ForwardResult<double> render_forward_ray<double>(const SceneT<double>&, const Camera&,
                                                          const RenderSettings&);

}  // namespace radiant::cpu
