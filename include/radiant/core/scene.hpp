#pragma once
// A Gaussian scene, structure of arrays (DESIGN.md §3). Raw parameters, as optimised and as stored in PLY:
//   means          [N, 3]
//   log_scales     [N, 3]   scale = exp(log_scale)
//   quats          [N, 4]   w, x, y, z; not necessarily unit
//   opacity_logits [N]      opacity = sigmoid(logit)
//   sh             [N, K, 3] K = (sh_degree + 1)², RGB innermost; sh[:, 0] is the DC term
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "radiant/core/sh.hpp"

namespace radiant {

template <class T>
RADIANT_HD T sigmoid(T x) {
    return T(1) / (T(1) + std::exp(-x));
}
template <class T>
RADIANT_HD T logit(T p) {
    return std::log(p / (T(1) - p));
}

template <class T>
struct SceneT {
    int sh_degree = 0;
    std::vector<T> means;
    std::vector<T> log_scales;
    std::vector<T> quats;
    std::vector<T> opacity_logits;
    std::vector<T> sh;

    std::size_t size() const { return opacity_logits.size(); }
    int sh_coeffs() const { return sh_coeff_count(sh_degree); }

    void resize(std::size_t n) {
        means.resize(3 * n);
        log_scales.resize(3 * n);
        quats.resize(4 * n);
        opacity_logits.resize(n);
        sh.resize(n * std::size_t(sh_coeffs()) * 3);
    }
    Vec3<T> mean(std::size_t i) const { return {means[3 * i], means[3 * i + 1], means[3 * i + 2]}; }
    Vec3<T> log_scale(std::size_t i) const {
        return {log_scales[3 * i], log_scales[3 * i + 1], log_scales[3 * i + 2]};
    }
    Vec4<T> quat(std::size_t i) const {
        return {quats[4 * i], quats[4 * i + 1], quats[4 * i + 2], quats[4 * i + 3]};
    }
    const T* sh_of(std::size_t i) const { return sh.data() + i * std::size_t(sh_coeffs()) * 3; }
};

using Scene = SceneT<float>;

template <class U, class T>
SceneT<U> scene_cast(const SceneT<T>& s) {
    SceneT<U> r;
    r.sh_degree = s.sh_degree;
    r.means.assign(s.means.begin(), s.means.end());
    r.log_scales.assign(s.log_scales.begin(), s.log_scales.end());
    r.quats.assign(s.quats.begin(), s.quats.end());
    r.opacity_logits.assign(s.opacity_logits.begin(), s.opacity_logits.end());
    r.sh.assign(s.sh.begin(), s.sh.end());
    return r;
}

// Throws Error (prefixed by `what`) when array sizes disagree, the degree is outside 0–3, a value is not
// finite, or a quaternion is zero.
void validate(const Scene& scene, const std::string& what);
// Only the sizes and the degree: for state handed between parts of radiant, whose values the trainer's
// guards look after (files are checked with validate when read).
void validate_shape(const Scene& scene, const std::string& what);

// Summary statistics for `radiant info`.
struct SceneStats {
    std::size_t count = 0;
    int sh_degree = 0;
    Vec3<double> bounds_min{}, bounds_max{};
    double opacity_min = 0, opacity_mean = 0, opacity_max = 0;
    double scale_min = 0, scale_median = 0, scale_max = 0;  // of exp(log_scale), all axes
};
SceneStats compute_stats(const Scene& scene);

}  // namespace radiant
