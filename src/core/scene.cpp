#include "radiant/core/scene.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "radiant/core/error.hpp"

namespace radiant {

namespace {

void check_scene(const Scene& s, const std::string& what, bool values) {
    auto fail = [&](const std::string& reason) { throw Error(fmt::format("{}: {}", what, reason)); };
    if (s.sh_degree < 0 || s.sh_degree > kMaxShDegree)
        fail(fmt::format("SH degree {} is outside 0..{}", s.sh_degree, kMaxShDegree));
    std::size_t n = s.size();
    auto check = [&](const std::vector<float>& v, std::size_t per, const char* name) {
        if (v.size() != n * per)
            fail(fmt::format("{} has {} values, expected {} ({} Gaussians × {})", name, v.size(), n * per, n,
                             per));
        if (!values) return;
        for (std::size_t i = 0; i < v.size(); ++i)
            if (!std::isfinite(v[i])) fail(fmt::format("{} of Gaussian {} is not finite", name, i / per));
    };
    check(s.means, 3, "mean");
    check(s.log_scales, 3, "log-scale");
    check(s.quats, 4, "quaternion");
    check(s.opacity_logits, 1, "opacity logit");
    check(s.sh, std::size_t(s.sh_coeffs()) * 3, "SH coefficients");
    if (!values) return;
    for (std::size_t i = 0; i < n; ++i)
        if (dot(s.quat(i), s.quat(i)) == 0.0f) fail(fmt::format("quaternion of Gaussian {} is zero", i));
}

}  // namespace

void validate(const Scene& s, const std::string& what) {
    check_scene(s, what, true);
}

void validate_shape(const Scene& s, const std::string& what) {
    check_scene(s, what, false);
}

SceneStats compute_stats(const Scene& s) {
    SceneStats st;
    st.count = s.size();
    st.sh_degree = s.sh_degree;
    if (st.count == 0) return st;
    st.bounds_min = {INFINITY, INFINITY, INFINITY};
    st.bounds_max = {-INFINITY, -INFINITY, -INFINITY};
    double op_sum = 0;
    st.opacity_min = INFINITY;
    st.opacity_max = -INFINITY;
    for (std::size_t i = 0; i < st.count; ++i) {
        for (int k = 0; k < 3; ++k) {
            st.bounds_min[k] = std::min(st.bounds_min[k], double(s.means[3 * i + k]));
            st.bounds_max[k] = std::max(st.bounds_max[k], double(s.means[3 * i + k]));
        }
        double o = sigmoid(double(s.opacity_logits[i]));
        op_sum += o;
        st.opacity_min = std::min(st.opacity_min, o);
        st.opacity_max = std::max(st.opacity_max, o);
    }
    st.opacity_mean = op_sum / double(st.count);
    std::vector<float> ls = s.log_scales;
    auto mid = ls.begin() + std::ptrdiff_t(ls.size() / 2);
    std::nth_element(ls.begin(), mid, ls.end());
    st.scale_median = std::exp(double(*mid));
    auto [mn, mx] = std::minmax_element(s.log_scales.begin(), s.log_scales.end());
    st.scale_min = std::exp(double(*mn));
    st.scale_max = std::exp(double(*mx));
    return st;
}

}  // namespace radiant
