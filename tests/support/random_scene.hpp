#pragma once
// Random scenes and cameras for tests, deterministic per seed.
#include <cmath>
#include <random>
#include <vector>

#include "radiant/core/camera.hpp"
#include "radiant/core/scene.hpp"

namespace radiant::test {

struct RandomSceneOptions {
    int count = 100;
    int sh_degree = 3;
    double spread = 1.0;           // means uniform in [−spread, spread]³
    double log_scale_mean = -2.5;  // ~8 % of the spread
    double log_scale_sd = 0.4;
    double opacity_logit_sd = 1.5;
    double sh_rest_sd = 0.2;
};

template <class T = float>
SceneT<T> random_scene(std::uint32_t seed, const RandomSceneOptions& o = {}) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> uni(-1.0, 1.0);
    std::normal_distribution<double> normal(0.0, 1.0);
    SceneT<T> s;
    s.sh_degree = o.sh_degree;
    s.resize(std::size_t(o.count));
    for (std::size_t i = 0; i < std::size_t(o.count); ++i) {
        for (int k = 0; k < 3; ++k) {
            s.means[3 * i + std::size_t(k)] = T(o.spread * uni(rng));
            s.log_scales[3 * i + std::size_t(k)] = T(o.log_scale_mean + o.log_scale_sd * normal(rng));
        }
        for (int k = 0; k < 4; ++k) s.quats[4 * i + std::size_t(k)] = T(normal(rng));
        s.opacity_logits[i] = T(o.opacity_logit_sd * normal(rng));
        const int kc = s.sh_coeffs();
        for (int k = 0; k < kc; ++k)
            for (int c = 0; c < 3; ++c)
                s.sh[(i * std::size_t(kc) + std::size_t(k)) * 3 + std::size_t(c)] =
                    T(k == 0 ? 0.8 * normal(rng) : o.sh_rest_sd * normal(rng));
    }
    return s;
}

// Every value of Gaussian i — mean, log-scales, quaternion, opacity logit, SH — to compare one Gaussian of
// two scenes (or of two Adam moment sets) at once.
inline std::vector<float> gaussian_values(const Scene& s, std::size_t i) {
    std::vector<float> out(s.means.begin() + std::ptrdiff_t(3 * i),
                           s.means.begin() + std::ptrdiff_t(3 * i + 3));
    out.insert(out.end(), s.log_scales.begin() + std::ptrdiff_t(3 * i),
               s.log_scales.begin() + std::ptrdiff_t(3 * i + 3));
    out.insert(out.end(), s.quats.begin() + std::ptrdiff_t(4 * i),
               s.quats.begin() + std::ptrdiff_t(4 * i + 4));
    out.push_back(s.opacity_logits[i]);
    const std::size_t k = 3 * std::size_t(s.sh_coeffs());
    out.insert(out.end(), s.sh.begin() + std::ptrdiff_t(k * i), s.sh.begin() + std::ptrdiff_t(k * i + k));
    return out;
}

// gaussian_values' two parts: geometry and opacity (11 values), and the SH row.
inline std::vector<float> geometry_values(const Scene& s, std::size_t i) {
    std::vector<float> out = gaussian_values(s, i);
    out.resize(11);
    return out;
}
inline std::vector<float> sh_values(const Scene& s, std::size_t i) {
    const std::size_t k = 3 * std::size_t(s.sh_coeffs());
    return {s.sh.begin() + std::ptrdiff_t(k * i), s.sh.begin() + std::ptrdiff_t(k * i + k)};
}

// A camera on a sphere of `distance` around the origin looking at it, with a random roll.
inline Camera random_camera(std::uint32_t seed, int width, int height, double distance = 3.5,
                            double fov = 55) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    Vec3<double> dir{normal(rng), normal(rng), normal(rng)};
    Vec3<double> up{normal(rng), normal(rng), normal(rng)};
    Camera c = look_at(distance * normalize(dir), {0, 0, 0}, up, fov, width, height);
    c.cx += 0.1 * width * normal(rng) * 0.2;  // off-centre principal point
    c.fx *= 1.0 + 0.05 * normal(rng);         // non-square pixels
    return c;
}

}  // namespace radiant::test
