#include "radiant/train/initialize.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "radiant/core/error.hpp"
#include "radiant/core/kdtree.hpp"
#include "radiant/core/log.hpp"

namespace radiant {

Scene scene_from_points(const std::vector<Vec3<float>>& points,
                        const std::vector<std::array<std::uint8_t, 3>>& colours, const InitOptions& o) {
    RADIANT_CHECK(points.size() == colours.size(), "one colour per point");
    RADIANT_CHECK(o.sh_degree >= 0 && o.sh_degree <= 3, "SH degree in 0..3");
    Scene s;
    s.sh_degree = o.sh_degree;
    s.resize(points.size());
    const std::vector<float> d2 = mean_sq_dist_3nn(points);
    const std::size_t k = std::size_t(s.sh_coeffs());
    const float logit0 = float(logit(o.initial_opacity));
    for (std::size_t i = 0; i < points.size(); ++i) {
        // Inria clamps the squared distance at 1e-7 so coincident points still get a finite scale.
        const float log_scale = 0.5f * std::log(std::max(d2[i], 1e-7f)) + float(std::log(o.initial_scale));
        for (int c = 0; c < 3; ++c) {
            s.means[3 * i + std::size_t(c)] = points[i][c];
            s.log_scales[3 * i + std::size_t(c)] = log_scale;
            s.sh[i * k * 3 + std::size_t(c)] = float((colours[i][std::size_t(c)] / 255.0 - 0.5) / kShC0);
        }
        s.quats[4 * i] = 1.0f;
        s.opacity_logits[i] = logit0;
    }
    return s;
}

Scene initial_scene(const Dataset& ds, const InitOptions& o) {
    if (!ds.points.empty()) {
        log_info("initialising {} Gaussians from the dataset's points", ds.points.size());
        return scene_from_points(ds.points, ds.point_colours, o);
    }
    std::mt19937 rng(o.seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::uniform_int_distribution<int> colour(0, 255);
    // NeRF-synthetic objects sit in [-1.3, 1.3]³ (Inria 3DGS). Elsewhere: a cube around the cameras' focus
    // point reaching the farthest camera, keeping only points some training camera sees — a point no camera
    // sees never gets a gradient and only costs memory.
    const bool synthetic = ds.format == "nerf-synthetic";
    const Vec3<double> centre = synthetic ? Vec3<double>{} : ds.focus;
    double half = 1.3;
    if (!synthetic) {
        half = 0;
        for (const DatasetView& v : ds.views) half = std::max(half, length(v.camera.centre() - centre));
        if (!(half > 0)) half = ds.extent;
    }
    std::vector<PinholeParams<double>> train_cams;
    for (const DatasetView& v : ds.views)
        if (!v.test) train_cams.push_back(pinhole_params<double>(v.camera));
    auto seen = [&](Vec3<double> p) {
        if (synthetic) return true;
        for (const PinholeParams<double>& cam : train_cams) {
            const Vec3<double> q = world_to_camera(cam, p);
            if (q.z <= 0) continue;
            const Vec2<double> px = project_pinhole(cam, q);
            if (px.x >= 0 && px.y >= 0 && px.x < cam.width && px.y < cam.height) return true;
        }
        return false;
    };
    std::vector<Vec3<float>> pts;
    std::vector<std::array<std::uint8_t, 3>> cols;
    pts.reserve(o.random_points);
    cols.reserve(o.random_points);
    const std::size_t max_tries = 100 * o.random_points;
    for (std::size_t tries = 0; pts.size() < o.random_points && tries < max_tries; ++tries) {
        const Vec3<double> p = centre + half * Vec3<double>{u(rng), u(rng), u(rng)};
        const std::array<std::uint8_t, 3> col{std::uint8_t(colour(rng)), std::uint8_t(colour(rng)),
                                              std::uint8_t(colour(rng))};
        if (!seen(p)) continue;
        pts.push_back(cast<float>(p));
        cols.push_back(col);
    }
    if (pts.empty())
        throw Error(fmt::format("{}: no random initial point is seen by any training camera", ds.root));
    log_info(
        "initialising {} random Gaussians in a cube of half-size {:.3f} around {:.3f} {:.3f} {:.3f} (the "
        "dataset has no points)",
        pts.size(), half, centre.x, centre.y, centre.z);
    return scene_from_points(pts, cols, o);
}

}  // namespace radiant
