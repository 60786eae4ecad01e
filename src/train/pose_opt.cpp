#include "radiant/train/pose_opt.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "radiant/core/camera_grad.hpp"
#include "radiant/core/error.hpp"

namespace radiant {

PoseState PoseState::zero(std::size_t images) {
    PoseState s;
    s.delta.assign(images, {});
    s.m.assign(images, {});
    s.v.assign(images, {});
    s.steps.assign(images, 0);
    return s;
}

void validate(const PoseState& s, const std::string& name) {
    const std::size_t n = s.delta.size();
    if (s.m.size() != n || s.v.size() != n || s.steps.size() != n)
        throw IoError(name, fmt::format("pose corrections: {} images but {} / {} / {} optimizer entries", n,
                                        s.m.size(), s.v.size(), s.steps.size()));
    for (std::size_t i = 0; i < n; ++i)
        for (int k = 0; k < 6; ++k)
            if (!std::isfinite(s.delta[i][std::size_t(k)]) || !std::isfinite(s.m[i][std::size_t(k)]) ||
                !std::isfinite(s.v[i][std::size_t(k)]))
                throw IoError(name, fmt::format("pose correction of image {} is not finite", i));
}

Camera corrected_camera(const Camera& camera, const std::array<double, 6>& d) {
    const Mat3<double> rot = so3_exp(Vec3<double>{d[0], d[1], d[2]});
    Camera c = camera;
    c.R = rot * camera.R;
    c.t = rot * camera.t + Vec3<double>{d[3], d[4], d[5]};
    return c;
}

CorrectionSize correction_size(const std::array<double, 6>& d) {
    return {std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) * 180.0 / std::numbers::pi,
            std::sqrt(d[3] * d[3] + d[4] * d[4] + d[5] * d[5])};
}

std::array<double, 6> pose_param_grads(const std::array<double, 6>& d, Vec3<double> v_rot,
                                       Vec3<double> v_trans) {
    const Vec3<double> tau{d[3], d[4], d[5]};
    // dL = v_rot·ε + v_trans·(−ε × τ) = ε·(v_rot − τ × v_trans); ε = J·dω.
    const Vec3<double> v_eps = v_rot - cross(tau, v_trans);
    const Vec3<double> v_w = transpose(so3_left_jacobian(Vec3<double>{d[0], d[1], d[2]})) * v_eps;
    return {v_w.x, v_w.y, v_w.z, v_trans.x, v_trans.y, v_trans.z};
}

void pose_update(PoseState& s, std::size_t image, Vec3<double> v_rot, Vec3<double> v_trans, double lr,
                 double extent, const PoseConfig& c) {
    RADIANT_CHECK(image < s.images(), fmt::format("pose update: no image {} ({} held)", image, s.images()));
    std::array<double, 6>& d = s.delta[image];
    std::array<double, 6> g = pose_param_grads(d, v_rot, v_trans);
    const double beta1 = 0.9, beta2 = 0.999, eps = 1e-15;
    const std::int64_t t = ++s.steps[image];
    const double bias1 = 1 - std::pow(beta1, double(t)), bias2 = 1 - std::pow(beta2, double(t));
    for (std::size_t k = 0; k < 6; ++k) {
        // τ in units of the extent, so one rate and one decay serve both halves.
        const double unit = k < 3 ? 1.0 : extent;
        double gk = g[k] * unit;
        if (!std::isfinite(gk)) continue;  // a non-finite gradient leaves the correction as it was
        gk += c.reg * d[k] / unit;
        s.m[image][k] = beta1 * s.m[image][k] + (1 - beta1) * gk;
        s.v[image][k] = beta2 * s.v[image][k] + (1 - beta2) * gk * gk;
        d[k] -= unit * lr * (s.m[image][k] / bias1) / (std::sqrt(s.v[image][k] / bias2) + eps);
    }
}

void remove_common_motion(PoseState& s, const std::vector<const Camera*>& cameras,
                          const std::vector<std::size_t>& images) {
    if (images.empty()) return;
    // Camera i's correction as a world motion: R·exp([Ω]×) = exp([ω]×)·R gives Ω = Rᵀω, and
    // R·(T) + t = exp([ω]×)·t + τ gives T = Rᵀ(exp([ω]×)·t + τ − t).
    std::vector<Vec3<double>> omega(images.size()), trans(images.size());
    Vec3<double> mean_omega{}, mean_trans{};
    for (std::size_t k = 0; k < images.size(); ++k) {
        const Camera& c = *cameras[images[k]];
        const std::array<double, 6>& d = s.delta[images[k]];
        const Vec3<double> w{d[0], d[1], d[2]}, tau{d[3], d[4], d[5]};
        omega[k] = transpose(c.R) * w;
        trans[k] = transpose(c.R) * (so3_exp(w) * c.t + tau - c.t);
        mean_omega = mean_omega + omega[k];
        mean_trans = mean_trans + trans[k];
    }
    const double inv = 1.0 / double(images.size());
    mean_omega = inv * mean_omega;
    mean_trans = inv * mean_trans;
    for (std::size_t k = 0; k < images.size(); ++k) {
        const Camera& c = *cameras[images[k]];
        const Vec3<double> w = c.R * (omega[k] - mean_omega);
        const Vec3<double> tau = c.R * (trans[k] - mean_trans) + c.t - so3_exp(w) * c.t;
        s.delta[images[k]] = {w.x, w.y, w.z, tau.x, tau.y, tau.z};
    }
}

void remove_mean_turn(PoseState& s, const std::vector<std::size_t>& images) {
    if (images.empty()) return;
    Vec3<double> mean{};
    for (const std::size_t i : images)
        mean = mean + Vec3<double>{s.delta[i][0], s.delta[i][1], s.delta[i][2]};
    mean = (1.0 / double(images.size())) * mean;
    for (const std::size_t i : images) {
        std::array<double, 6>& d = s.delta[i];
        const Vec3<double> w{d[0], d[1], d[2]}, tau{d[3], d[4], d[5]};
        const Vec3<double> w2 = w - mean;
        // The centre −Rᵀ·exp(−[ω]×)·τ − Rᵀt stays: τ' = exp([ω']×)·exp(−[ω]×)·τ.
        const Vec3<double> tau2 = so3_exp(w2) * (transpose(so3_exp(w)) * tau);
        d = {w2.x, w2.y, w2.z, tau2.x, tau2.y, tau2.z};
    }
}

double pose_lr(const PoseConfig& c, long step, long steps) {
    const long span = steps - c.start;
    const double f = span > 1 ? std::clamp(double(step - c.start) / double(span), 0.0, 1.0) : 1.0;
    return c.lr * std::pow(c.lr_final / c.lr, f);
}

}  // namespace radiant
