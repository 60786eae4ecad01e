#include "radiant/train/pose_fit.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "radiant/train/pose_opt.hpp"

namespace radiant {
namespace {

using Vec6 = std::array<double, 6>;
using Mat6 = std::array<Vec6, 6>;

// Solves a·x = b by elimination with partial pivoting; false when a is singular.
bool solve6(Mat6 a, Vec6 b, Vec6& x) {
    for (int c = 0; c < 6; ++c) {
        int p = c;
        for (int r = c + 1; r < 6; ++r)
            if (std::abs(a[r][c]) > std::abs(a[p][c])) p = r;
        if (!(std::abs(a[p][c]) > 0)) return false;
        std::swap(a[p], a[c]);
        std::swap(b[p], b[c]);
        for (int r = c + 1; r < 6; ++r) {
            const double f = a[r][c] / a[c][c];
            for (int k = c; k < 6; ++k) a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int r = 5; r >= 0; --r) {
        double s = b[r];
        for (int k = r + 1; k < 6; ++k) s -= a[r][k] * x[k];
        x[r] = s / a[r][r];
    }
    for (double v : x)
        if (!std::isfinite(v)) return false;
    return true;
}

// The loss and its gradient at a correction, in the scaled parameters (ω, τ / extent) the fit works in.
struct Probe {
    double loss = 0;
    Vec6 grad{};
};

}  // namespace

std::array<double, 6> fit_pose(Backend& backend, StepInput in, const Camera& given,
                               std::array<double, 6> delta, const PoseFit& fit, double extent) {
    in.update = false;
    in.camera_grads = true;
    in.profile = false;
    int left = fit.iters;  // measuring steps still to spend
    auto probe = [&](const Vec6& p) {
        Vec6 d = p;
        for (int k = 3; k < 6; ++k) d[std::size_t(k)] *= extent;
        const Camera camera = corrected_camera(given, d);
        in.camera = &camera;
        const StepStats s = backend.step(in);
        --left;
        const Vec6 g = pose_param_grads(d, s.camera_rot, s.camera_trans);
        Probe r;
        r.loss = s.loss;
        for (int k = 0; k < 6; ++k) {
            const double unit = k < 3 ? 1.0 : extent;
            r.grad[std::size_t(k)] = g[std::size_t(k)] * unit + fit.reg * p[std::size_t(k)];
            r.loss += 0.5 * fit.reg * p[std::size_t(k)] * p[std::size_t(k)];
        }
        return r;
    };
    auto unscaled = [&](Vec6 p) {
        for (int k = 3; k < 6; ++k) p[std::size_t(k)] *= extent;
        return p;
    };
    Vec6 p = delta;
    for (int k = 3; k < 6; ++k) p[std::size_t(k)] /= extent;
    if (left <= 0) return delta;
    Probe at = probe(p);
    auto finite = [](const Probe& r) {
        bool ok = std::isfinite(r.loss);
        for (double g : r.grad) ok = ok && std::isfinite(g);
        return ok;
    };
    if (!finite(at)) return delta;
    // Levenberg–Marquardt on a Hessian from finite differences of the gradient (7 renders a round: 6 for the
    // Hessian, 1 for the step, more when a step is refused and damped harder): turning and moving the camera
    // shift the image almost alike, so the loss is a long, narrow valley that first-order steps (Adam's)
    // cross and recross instead of following.
    const double h = 3e-4;  // ~0.02°, and 0.03 % of the extent
    double mu = 1e-3;
    while (left >= 7) {
        Mat6 hess{};
        for (int k = 0; k < 6; ++k) {
            Vec6 q = p;
            q[std::size_t(k)] += h;
            const Probe b = probe(q);
            if (!finite(b)) return unscaled(p);
            for (int r = 0; r < 6; ++r)
                hess[std::size_t(r)][std::size_t(k)] = (b.grad[std::size_t(r)] - at.grad[std::size_t(r)]) / h;
        }
        for (int r = 0; r < 6; ++r)
            for (int k = r + 1; k < 6; ++k) {
                const double m =
                    0.5 * (hess[std::size_t(r)][std::size_t(k)] + hess[std::size_t(k)][std::size_t(r)]);
                hess[std::size_t(r)][std::size_t(k)] = hess[std::size_t(k)][std::size_t(r)] = m;
            }
        bool moved = false;
        while (left >= 1 && !moved && mu <= 1e6) {
            Mat6 a = hess;
            double scale = 0;
            for (int r = 0; r < 6; ++r)
                scale = std::max(scale, std::abs(hess[std::size_t(r)][std::size_t(r)]));
            for (int r = 0; r < 6; ++r) a[std::size_t(r)][std::size_t(r)] += mu * scale + 1e-12;
            Vec6 neg{}, step{};
            for (int r = 0; r < 6; ++r) neg[std::size_t(r)] = -at.grad[std::size_t(r)];
            if (!solve6(a, neg, step)) {
                mu *= 10;
                continue;
            }
            Vec6 q = p;
            for (int k = 0; k < 6; ++k) q[std::size_t(k)] += step[std::size_t(k)];
            const Probe b = probe(q);
            if (finite(b) && b.loss < at.loss) {
                p = q;
                at = b;
                mu = std::max(mu / 4, 1e-6);
                moved = true;
            } else {
                mu *= 8;
            }
        }
        if (!moved) break;
    }
    return unscaled(p);
}

}  // namespace radiant
