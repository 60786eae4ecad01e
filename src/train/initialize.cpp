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
        const float log_scale = 0.5f * std::log(std::max(d2[i], 1e-7f));
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
    const bool synthetic = ds.format == "nerf-synthetic";
    const Vec3<float> centre = synthetic ? Vec3<float>{} : cast<float>(ds.centre);
    const float half = synthetic ? 1.3f : float(ds.extent / 1.1);
    std::vector<Vec3<float>> pts(o.random_points);
    std::vector<std::array<std::uint8_t, 3>> cols(o.random_points);
    for (std::size_t i = 0; i < pts.size(); ++i) {
        pts[i] = centre + half * Vec3<float>{u(rng), u(rng), u(rng)};
        cols[i] = {std::uint8_t(colour(rng)), std::uint8_t(colour(rng)), std::uint8_t(colour(rng))};
    }
    log_info("initialising {} random Gaussians in a cube of half-size {:.3f} (the dataset has no points)",
             pts.size(), half);
    return scene_from_points(pts, cols, o);
}

}  // namespace radiant
