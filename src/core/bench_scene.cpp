#include "radiant/core/bench_scene.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

namespace radiant {
namespace {

struct Sphere {
    Vec3<double> centre;
    double radius;
};

}  // namespace

Scene make_bench_scene(const BenchSceneOptions& o) {
    constexpr double kPi = std::numbers::pi;
    // Surfaces, sampled in proportion to their area: wall z = 6 (8 × 4.6), floor y = 1.5 for z ∈ [3.5, 6]
    // (x across the wall's width), and three spheres.
    const Sphere spheres[3] = {{{-1.2, 0.3, 3.5}, 0.8}, {{1.3, 0.3, 4.2}, 1.0}, {{0.2, -0.3, 3.0}, 0.5}};
    const double wall = 8.0 * 4.6, floor = 8.0 * 2.5;
    double areas[5] = {wall, floor, 0, 0, 0};
    for (int i = 0; i < 3; ++i) areas[2 + i] = 4 * kPi * spheres[i].radius * spheres[i].radius;

    std::mt19937_64 rng(o.seed);
    std::uniform_real_distribution<double> uni(0.0, 1.0);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::discrete_distribution<int> surface(std::begin(areas), std::end(areas));
    const double ls_mean = std::log(o.heavier ? 0.03 : 0.01);
    const double ls_lo = std::log(1e-3), ls_hi = std::log(0.1);

    Scene s;
    s.sh_degree = 3;
    s.resize(o.count);
    const std::size_t k = std::size_t(s.sh_coeffs());
    for (std::size_t g = 0; g < o.count; ++g) {
        Vec3<double> p, n;
        const int which = surface(rng);
        if (which == 0) {
            p = {-4.0 + 8.0 * uni(rng), -2.3 + 4.6 * uni(rng), 6.0};
            n = {0, 0, -1};
        } else if (which == 1) {
            p = {-4.0 + 8.0 * uni(rng), 1.5, 3.5 + 2.5 * uni(rng)};
            n = {0, -1, 0};
        } else {
            const Sphere& sp = spheres[which - 2];
            n = normalize(Vec3<double>{normal(rng), normal(rng), normal(rng)});
            p = sp.centre + sp.radius * n;
        }
        p = p + (0.005 * normal(rng)) * n;  // 5 mm normal noise
        for (int c = 0; c < 3; ++c) {
            s.means[3 * g + std::size_t(c)] = float(p[c]);
            s.log_scales[3 * g + std::size_t(c)] =
                float(std::clamp(ls_mean + 0.5 * normal(rng), ls_lo, ls_hi));
        }
        Vec4<double> q{normal(rng), normal(rng), normal(rng), normal(rng)};
        const double inv = 1.0 / std::sqrt(dot(q, q));
        s.quats[4 * g] = float(q.x * inv);
        s.quats[4 * g + 1] = float(q.y * inv);
        s.quats[4 * g + 2] = float(q.z * inv);
        s.quats[4 * g + 3] = float(q.w * inv);
        s.opacity_logits[g] = float(2.0 * normal(rng));
        for (std::size_t j = 0; j < k; ++j)
            for (int c = 0; c < 3; ++c)
                s.sh[(g * k + j) * 3 + std::size_t(c)] = float((j == 0 ? 0.5 : 0.05) * normal(rng));
    }
    return s;
}

Camera bench_camera(int width, int height) {
    Camera c;
    c.name = "bench";
    c.width = width;
    c.height = height;
    c.fx = c.fy = 0.8 * width;
    c.cx = 0.5 * width;
    c.cy = 0.5 * height;
    return c;
}

}  // namespace radiant
