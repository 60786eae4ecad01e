#pragma once
// The similarity x ↦ s·Q·x + T taking one set of points onto another (least squares): how recovered camera
// centres are compared with the true ones, since structure from motion (or a scene trained with its
// cameras) is free to sit anywhere, turned and scaled.
#include <cmath>
#include <vector>

#include "radiant/core/camera_grad.hpp"
#include "radiant/core/vec.hpp"

namespace radiant::test {

struct Similarity {
    Mat3<double> Q = Mat3<double>::identity();
    Vec3<double> T{0, 0, 0};
    double s = 1;
    Vec3<double> operator()(Vec3<double> x) const { return s * (Q * x) + T; }
};

// Horn's closed form would need a 4×4 eigensolver; from the centroids, scale and an initial turn, a few
// Gauss–Newton steps on (δω, δT, δ log s) converge to the same least-squares fit.
inline Similarity align_points(const std::vector<Vec3<double>>& from, const std::vector<Vec3<double>>& to) {
    Similarity a;
    const std::size_t n = from.size();
    if (n == 0 || to.size() != n) return a;
    Vec3<double> cf{0, 0, 0}, ct{0, 0, 0};
    for (std::size_t i = 0; i < n; ++i) {
        cf = cf + from[i];
        ct = ct + to[i];
    }
    cf = (1.0 / double(n)) * cf;
    ct = (1.0 / double(n)) * ct;
    double rf = 0, rt = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const Vec3<double> df = from[i] - cf, dt = to[i] - ct;
        rf += dot(df, df);
        rt += dot(dt, dt);
    }
    a.s = rf > 0 ? std::sqrt(rt / rf) : 1;
    // Gauss–Newton finds the turn only near it: start from the identity and from turns of π/4, π/2 and 3π/4
    // about each axis, and keep the best fit.
    double best = 1e300;
    Similarity best_fit = a;
    const double kPi = 3.14159265358979323846;
    const Vec3<double> axes[6] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}};
    for (int start = 0; start < 19; ++start) {
        Similarity f = a;
        if (start > 0) f.Q = so3_exp(kPi * 0.25 * double(1 + (start - 1) / 6) * axes[(start - 1) % 6]);
        f.T = ct - f.s * (f.Q * cf);
        for (int iteration = 0; iteration < 30; ++iteration) {
            double m[7][8] = {};
            for (std::size_t i = 0; i < n; ++i) {
                const Vec3<double> y = f.s * (f.Q * from[i]), r = y + f.T - to[i];
                const double jac[3][7] = {
                    {0, y.z, -y.y, 1, 0, 0, y.x}, {-y.z, 0, y.x, 0, 1, 0, y.y}, {y.y, -y.x, 0, 0, 0, 1, y.z}};
                for (int k = 0; k < 3; ++k)
                    for (int u = 0; u < 7; ++u) {
                        for (int v = 0; v < 7; ++v) m[u][v] += jac[k][u] * jac[k][v];
                        m[u][7] -= jac[k][u] * r[k];
                    }
            }
            for (int u = 0; u < 7; ++u) m[u][u] += 1e-12;
            for (int c = 0; c < 7; ++c)
                for (int r = 0; r < 7; ++r) {
                    if (r == c) continue;
                    const double k = m[r][c] / m[c][c];
                    for (int j = c; j < 8; ++j) m[r][j] -= k * m[c][j];
                }
            double d[7];
            for (int k = 0; k < 7; ++k) d[k] = m[k][7] / m[k][k];
            f.Q = so3_exp(Vec3<double>{d[0], d[1], d[2]}) * f.Q;
            f.T = f.T + Vec3<double>{d[3], d[4], d[5]};
            f.s *= std::exp(std::clamp(d[6], -1.0, 1.0));
        }
        double err = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const Vec3<double> r = f(from[i]) - to[i];
            err += dot(r, r);
        }
        if (err < best) best = err, best_fit = f;
    }
    return best_fit;
}

}  // namespace radiant::test
