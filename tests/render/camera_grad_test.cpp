// Issue 22 item 2: the gradient of a render with respect to its camera's pose (core/camera_grad.hpp), for
// both shading models, against central differences in double; and the exponential map's Jacobian.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "radiant/core/camera_grad.hpp"
#include "radiant/render/cpu/render_cpu.hpp"
#include "support/gradient_check.hpp"
#include "support/random_scene.hpp"

namespace radiant {
namespace {

// The camera moved as core/camera_grad.hpp defines it: x_cam' = exp([ε]×)·x_cam + τ.
Camera moved(const Camera& c, Vec3<double> eps, Vec3<double> tau) {
    Camera m = c;
    const Mat3<double> r = so3_exp(eps);
    m.R = r * c.R;
    m.t = r * c.t + tau;
    return m;
}

struct PoseCheck {
    double rel_error = 0, fd_norm = 0;
    int checked = 0;
};

// Central differences of Σ w·C over the six pose components; a component whose perturbed renders change
// the discrete structure (test::signature) is skipped.
PoseCheck check_pose(const SceneT<double>& s, const Camera& cam, const RenderSettings& st,
                     const Image<double>& w) {
    RenderSettings probe = st;
    probe.trace_mode = TraceMode::trace;
    probe.max_splat_steps = int(s.size()) + 1;
    const auto base = cpu::render_forward(s, cam, probe);
    const std::vector<std::int64_t> sig = test::signature(s, cam, base);
    const auto fwd = cpu::render_forward(s, cam, st);
    const SceneGradsT<double> g = cpu::render_backward(s, cam, st, fwd, w);
    auto loss = [&](const Camera& c, bool& same) {
        const auto f = cpu::render_forward(s, c, probe);
        same = st.shading == Shading::ray || test::signature(s, c, f) == sig;
        double l = 0;
        for (std::size_t i = 0; i < f.rgb.data.size(); ++i) l += w.data[i] * f.rgb.data[i];
        return l;
    };
    PoseCheck out;
    double num = 0, den = 0;
    const double h = 1e-6;
    for (int k = 0; k < 6; ++k) {
        Vec3<double> e{}, t{};
        (k < 3 ? e : t)[k % 3] = h;
        bool sp = false, sm = false;
        const double lp = loss(moved(cam, e, t), sp), lm = loss(moved(cam, -1.0 * e, -1.0 * t), sm);
        if (!sp || !sm) continue;
        const double fd = (lp - lm) / (2 * h);
        const double analytic = k < 3 ? g.camera_rot[k] : g.camera_trans[k - 3];
        num += (fd - analytic) * (fd - analytic);
        den += fd * fd;
        ++out.checked;
    }
    out.fd_norm = std::sqrt(den);
    out.rel_error = std::sqrt(num / std::max(den, 1e-300));
    return out;
}

TEST(CameraPoseGrad, EwaMatchesCentralDifferences) {
    for (std::uint32_t seed : {1u, 2u, 3u}) {
        test::RandomSceneOptions o;
        o.count = 80;
        o.sh_degree = 2;  // the view direction depends on the camera centre
        const SceneT<double> s = test::random_scene<double>(seed, o);
        const Camera cam = test::random_camera(seed + 10, 48, 40);
        RenderSettings st;
        st.background = {0.3, 0.1, 0.6};
        for (bool aa : {false, true}) {
            st.antialiased = aa;
            const PoseCheck c = check_pose(s, cam, st, test::random_weights(seed + 20, 48, 40));
            std::printf("[pose grad] ewa seed %u aa %d: relative error %.3g over %d components\n", seed,
                        int(aa), c.rel_error, c.checked);
            EXPECT_GE(c.checked, 5);
            EXPECT_GT(c.fd_norm, 0);
            EXPECT_LT(c.rel_error, 1e-5);
        }
    }
}

TEST(CameraPoseGrad, RayMatchesCentralDifferencesOnADistortedCamera) {
    test::RandomSceneOptions o;
    o.count = 60;
    o.sh_degree = 2;
    o.log_scale_mean = -1.8;
    const SceneT<double> s = test::random_scene<double>(8, o);
    Camera cam = look_at({0.3, -0.2, -3.0}, {0, 0, 0}, {0, -1, 0}, 60.0, 40, 32);
    cam.model = CameraModel::opencv;
    cam.distortion = {-0.2, 0.05, 0.001, -0.002};
    for (double eps2d : {0.0, 0.3}) {
        RenderSettings st;
        st.shading = Shading::ray;
        st.eps2d = eps2d;
        st.background = {0.3, 0.1, 0.6};
        const PoseCheck c = check_pose(s, cam, st, test::random_weights(5, 40, 32));
        std::printf("[pose grad] ray eps2d %.1f: relative error %.3g over %d components\n", eps2d,
                    c.rel_error, c.checked);
        EXPECT_EQ(c.checked, 6);
        EXPECT_GT(c.fd_norm, 0);
        EXPECT_LT(c.rel_error, 1e-5);
    }
}

TEST(CameraPoseGrad, ExponentialMapAndItsLeftJacobian) {
    const Vec3<double> w{0.3, -0.5, 0.2}, dw{1e-7, -2e-7, 1.5e-7};
    const Mat3<double> r = so3_exp(w);
    EXPECT_NEAR(r.m[0][0] * r.m[0][0] + r.m[1][0] * r.m[1][0] + r.m[2][0] * r.m[2][0], 1.0, 1e-12);
    // exp(w + dw)·exp(w)ᵀ ≈ exp([J dw]×)
    const Mat3<double> d = so3_exp(w + dw) * transpose(r);
    const Vec3<double> predicted = so3_left_jacobian(w) * dw;
    EXPECT_NEAR(d.m[2][1], predicted.x, 1e-12);
    EXPECT_NEAR(d.m[0][2], predicted.y, 1e-12);
    EXPECT_NEAR(d.m[1][0], predicted.z, 1e-12);
    const Mat3<double> small = so3_exp(Vec3<double>{1e-6, 0, 0});
    EXPECT_NEAR(small.m[2][1], 1e-6, 1e-15);
}

}  // namespace
}  // namespace radiant
