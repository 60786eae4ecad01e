// CPU reference forward for the `ray` model (ray_forward.hpp).
#include "radiant/render/cpu/ray_forward.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>

#include "composite_tiles.hpp"
#include "radiant/core/composite.hpp"
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
    const Distortion<T> d = distortion_of<T>(camera);
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
                Vec3<T> dir;
                if (!camera_ray(T(camera.fx), T(camera.fy), T(camera.cx), T(camera.cy), d, T(x), T(y), dir))
                    continue;
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
    const TileGrid& grid = out.grid;
    const RayCamera<T> rays = ray_camera<T>(camera, grid);
    RayProjected<T> ray;
    project_ray(scene, camera, settings, rays, grid, out.projected, ray);
    const Projected<T>& pr = out.projected;

    // Bin: every tile of the rect whose own undistorted bounds meet the silhouette (unbounded: all of them).
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
    fill_tile_lists(items, grid.tile_count(), out.lists);

    // Raster: as `ewa`'s, with α from each Gaussian's peak along the pixel's ray.
    const T cutoff = T(settings.alpha_cutoff);
    composite_tiles(
        pr, out.lists, grid, settings, out, [&](std::size_t g, int, int, std::size_t pix, T& alpha) {
            if (!rays.valid[pix]) return false;
            const RayResponse<T> h =
                ray_response(ray.whitening[g], ray.means[g], pr.opacities[g], Vec3<T>{}, rays.dirs[pix]);
            alpha = std::min(h.alpha, T(kMaxAlpha));
            return h.in_front && alpha >= cutoff;
        });
    return out;
}

template <class T>
SceneGradsT<T> render_backward_ray(const SceneT<T>& scene, const Camera& camera,
                                   const RenderSettings& settings, const ForwardResult<T>& fwd,
                                   const Image<T>& v_rgb) {
    const std::size_t n = scene.size(), k3 = std::size_t(scene.sh_coeffs()) * 3;
    SceneGradsT<T> out;
    out.sh_degree = scene.sh_degree;
    out.means.assign(3 * n, T(0));
    out.log_scales.assign(3 * n, T(0));
    out.quats.assign(4 * n, T(0));
    out.opacity_logits.assign(n, T(0));
    out.sh.assign(k3 * n, T(0));
    out.mean2d_grad_norms.assign(n, T(0));
    out.visible.assign(n, 0);
    const TileGrid& grid = fwd.grid;
    const Projected<T>& pr = fwd.projected;
    for (std::size_t g = 0; g < n; ++g) out.visible[g] = pr.visible(g) ? 1 : 0;
    const RayCamera<T> rays = ray_camera<T>(camera, grid);
    RayProjected<T> ray;
    Projected<T> unused;
    project_ray(scene, camera, settings, rays, grid, unused, ray);
    const PinholeParams<T> cam = pinhole_params<T>(camera);
    const Vec3<T> centre = cast<T>(camera.centre());
    const int degree = std::min(settings.sh_degree, scene.sh_degree);
    const T cutoff = T(settings.alpha_cutoff);
    const Vec3<T> bg{T(settings.background[0]), T(settings.background[1]), T(settings.background[2])};
    const int w = grid.width, ts = grid.tile_size;
    // The whitened closest approach is the same in camera and world coordinates, so each hit's camera-frame
    // response serves the world-frame VJP.
    struct Hit {
        std::size_t g;
        RayResponse<T> h;
        T alpha, trans;
        bool capped;
    };
    std::vector<Hit> hits;
    std::vector<Vec3<T>> v_mean_raster(n);  // ∂L/∂mean through α only: the densification statistic
    for (int y = 0; y < grid.height; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t pix = std::size_t(y) * std::size_t(w) + std::size_t(x);
            if (!rays.valid[pix]) continue;
            const int tile = (y / ts) * grid.tiles_x + x / ts;
            // Re-walk the forward's list up to its last composited entry.
            hits.clear();
            T trans = T(1);
            for (std::int32_t i = fwd.lists.tile_ranges[2 * std::size_t(tile)]; i < fwd.trace.last_isect[pix];
                 ++i) {
                const std::size_t g = std::size_t(fwd.lists.isect_gids[std::size_t(i)]);
                const RayResponse<T> h =
                    ray_response(ray.whitening[g], ray.means[g], pr.opacities[g], Vec3<T>{}, rays.dirs[pix]);
                const T alpha = std::min(h.alpha, T(kMaxAlpha));
                if (!h.in_front || alpha < cutoff) continue;
                hits.push_back({g, h, alpha, trans, h.alpha >= T(kMaxAlpha)});
                trans *= T(1) - alpha;
            }
            const Vec3<T> v{v_rgb.data[3 * pix], v_rgb.data[3 * pix + 1], v_rgb.data[3 * pix + 2]};
            const Vec3<T> dir_world = transpose(cam.R) * rays.dirs[pix];
            Vec3<T> behind = bg;  // D: the colour behind the current hit
            for (std::size_t j = hits.size(); j-- > 0;) {
                const Hit& hit = hits[j];
                const std::size_t g = hit.g;
                const Vec3<T> col = pr.colours[g];
                const T v_alpha = hit.capped ? T(0) : hit.trans * dot(col - behind, v);
                const Vec3<T> v_colour = (hit.trans * hit.alpha) * v;
                behind = hit.alpha * col + (T(1) - hit.alpha) * behind;
                const RayResponseGrads<T> rg = ray_response_vjp(
                    scene.mean(g), scene.log_scale(g), scene.quat(g), centre, dir_world, hit.h, v_alpha);
                const Vec3<T> view = scene.mean(g) - centre;
                const Vec3<T> v_dir = sh_to_colour_vjp(degree, scene.sh_of(g), normalize(view), v_colour,
                                                       out.sh.data() + g * k3);
                const Vec3<T> v_mean = rg.v_mean + normalize_vjp(view, v_dir);
                v_mean_raster[g] += rg.v_mean;
                for (int c = 0; c < 3; ++c) {
                    out.means[3 * g + std::size_t(c)] += v_mean[c];
                    out.log_scales[3 * g + std::size_t(c)] += rg.v_log_scale[c];
                }
                for (int c = 0; c < 4; ++c) out.quats[4 * g + std::size_t(c)] += rg.v_quat[c];
                const T o = pr.opacities[g];
                out.opacity_logits[g] += rg.v_opacity * o * (T(1) - o);
            }
        }
    const T half_w = T(0.5) * T(camera.width), half_h = T(0.5) * T(camera.height);
    for (std::size_t g = 0; g < n; ++g) {
        if (!pr.visible(g)) continue;
        const Vec2<T> v2 =
            ray_mean2d_grad(ray.means[g], cam.R * v_mean_raster[g], T(camera.fx), T(camera.fy));
        out.mean2d_grad_norms[g] = std::sqrt(v2.x * half_w * v2.x * half_w + v2.y * half_h * v2.y * half_h);
    }
    return out;
}

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
