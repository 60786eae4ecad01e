// The `ray` shading model's per-Gaussian response (issue 8): its values, and its analytic gradient against
// central differences in double for every parameter group.
#include "radiant/core/ray_model.hpp"
#include "radiant/core/ray_project.hpp"

#include <gtest/gtest.h>

#include <random>

namespace radiant {
namespace {

struct Case {
    Vec3<double> mean, log_scale, origin, dir;
    Vec4<double> quat;
    double opacity;
};

double alpha_of(const Case& k) {
    return ray_response(whitening(k.log_scale, k.quat), k.mean, k.opacity, k.origin, k.dir).alpha;
}

TEST(RayModel, PeakResponseValues) {
    Case k{{0, 0, 5}, {std::log(0.5), std::log(0.5), std::log(0.5)}, {0, 0, 0}, {0, 0, 1}, {1, 0, 0, 0}, 0.8};
    EXPECT_NEAR(alpha_of(k), 0.8, 1e-12);  // through the mean: the full opacity
    k.origin = {0.5, 0, 0};                // one σ beside it: exp(−½)
    EXPECT_NEAR(alpha_of(k), 0.8 * std::exp(-0.5), 1e-12);
    const RayResponse<double> h =
        ray_response(whitening(k.log_scale, k.quat), k.mean, k.opacity, k.origin, k.dir);
    EXPECT_NEAR(h.t_star, 5.0, 1e-12);
    k.dir = {0, 0, -1};  // looking away: the peak is behind the camera
    EXPECT_EQ(alpha_of(k), 0.0);
    // An elongated, rotated Gaussian (90° about z: its long x axis along world y) seen from the side.
    Case e{{0, 0, 5}, {std::log(2.0), std::log(0.1), std::log(0.1)}, {0, 1, 0},
           {0, 0, 1}, {std::sqrt(0.5), 0, 0, std::sqrt(0.5)},        1.0};
    EXPECT_NEAR(alpha_of(e), std::exp(-0.5 * 0.25), 1e-12);  // 1 along the 2-σ axis = 0.5 σ
}

TEST(RayModel, GradientsMatchCentralDifferences) {
    std::mt19937 rng(5);
    std::normal_distribution<double> n(0, 1);
    int checked = 0;
    for (int trial = 0; trial < 200 && checked < 60; ++trial) {
        Case k{{0.3 * n(rng), 0.3 * n(rng), 4 + n(rng)},
               {-1 + 0.3 * n(rng), -1 + 0.3 * n(rng), -1 + 0.3 * n(rng)},
               {0.2 * n(rng), 0.2 * n(rng), 0.2 * n(rng)},
               {0.1 * n(rng), 0.1 * n(rng), 1},
               {1 + 0.3 * n(rng), 0.3 * n(rng), 0.3 * n(rng), 0.3 * n(rng)},
               0.7};
        const RayResponse<double> h =
            ray_response(whitening(k.log_scale, k.quat), k.mean, k.opacity, k.origin, k.dir);
        if (h.alpha < 1e-3) continue;  // far from every ray: nothing to check
        ++checked;
        const double v_alpha = 1.3;
        const RayResponseGrads<double> g =
            ray_response_vjp(k.mean, k.log_scale, k.quat, k.origin, k.dir, h, v_alpha);
        const double eps = 1e-6;
        auto fd = [&](auto&& poke) {
            Case a = k, b = k;
            poke(a, eps);
            poke(b, -eps);
            return v_alpha * (alpha_of(a) - alpha_of(b)) / (2 * eps);
        };
        for (int c = 0; c < 3; ++c) {
            EXPECT_NEAR(g.v_mean[c], fd([&](Case& x, double e) { x.mean[c] += e; }), 1e-6) << "mean " << c;
            EXPECT_NEAR(g.v_log_scale[c], fd([&](Case& x, double e) { x.log_scale[c] += e; }), 1e-6)
                << "scale " << c;
        }
        for (int c = 0; c < 4; ++c)
            EXPECT_NEAR(g.v_quat[c], fd([&](Case& x, double e) { x.quat[c] += e; }), 1e-6) << "quat " << c;
        EXPECT_NEAR(g.v_opacity, fd([&](Case& x, double e) { x.opacity += e; }), 1e-6);
    }
    EXPECT_GE(checked, 30);
}

// The GPU path sums each Gaussian's hits in the camera frame (add_ray_hit) and chains once per Gaussian
// (project_ray_gaussian_vjp); the CPU reference chains every hit in the world frame (ray_response_vjp). Both
// must give the same parameter gradients, and project_ray_gaussian must agree with the world-frame response.
TEST(RayModel, PerGaussianChainEqualsPerHitChain) {
    std::mt19937 rng(11);
    std::normal_distribution<double> n(0, 1);
    const double ang = 0.4;
    PinholeParams<double> cam{};
    cam.R = Mat3<double>{};
    cam.R.m[0][0] = std::cos(ang), cam.R.m[0][2] = std::sin(ang), cam.R.m[1][1] = 1;
    cam.R.m[2][0] = -std::sin(ang), cam.R.m[2][2] = std::cos(ang);
    cam.t = {0.1, -0.2, 0.3};
    cam.fx = cam.fy = 100, cam.cx = 32, cam.cy = 24, cam.width = 64, cam.height = 48;
    ProjectSettings<double> ps{};
    ps.cam = cam;
    ps.centre = -1.0 * (transpose(cam.R) * cam.t);
    ps.near_plane = 0.01, ps.far_plane = 1e4, ps.alpha_cutoff = 1.0 / 255, ps.sh_degree = 0;
    const double sh[3] = {0, 0, 0};
    int checked = 0;
    for (int trial = 0; trial < 40; ++trial) {
        const Vec3<double> m_cam{0.3 * n(rng), 0.3 * n(rng), 4 + n(rng)};
        GaussianParams<double> g{transpose(cam.R) * (m_cam - cam.t),
                                 {-1 + 0.3 * n(rng), -1 + 0.3 * n(rng), -1 + 0.3 * n(rng)},
                                 {1 + 0.3 * n(rng), 0.3 * n(rng), 0.3 * n(rng), 0.3 * n(rng)},
                                 0.5 * n(rng),
                                 sh};
        RayFootprint<double> f;
        if (!project_ray_gaussian(g, ps, f)) continue;
        RayHitSums<double> sums;
        RayResponseGrads<double> world{};
        for (int r = 0; r < 5; ++r) {
            const Vec3<double> dir{m_cam.x / m_cam.z + 0.1 * n(rng), m_cam.y / m_cam.z + 0.1 * n(rng), 1};
            const RayResponse<double> h = ray_response(f.whitening_cam, f.mean_cam, f.opacity, {}, dir);
            const RayResponse<double> hw = ray_response(whitening(g.log_scale, g.quat), g.mean, f.opacity,
                                                        ps.centre, transpose(cam.R) * dir);
            EXPECT_NEAR(h.alpha, hw.alpha, 1e-12);
            const double v_alpha = n(rng);
            add_ray_hit(h, dir, v_alpha, sums);
            const RayResponseGrads<double> w =
                ray_response_vjp(g.mean, g.log_scale, g.quat, ps.centre, transpose(cam.R) * dir, hw, v_alpha);
            world.v_mean += w.v_mean;
            world.v_log_scale += w.v_log_scale;
            for (int c = 0; c < 4; ++c) world.v_quat[c] += w.v_quat[c];
            world.v_opacity += w.v_opacity;
        }
        double v_sh[3] = {0, 0, 0};
        Vec3<double> v_mean_cam;
        const GaussianGrads<double> got = project_ray_gaussian_vjp(g, ps, sums, v_sh, v_mean_cam);
        for (int c = 0; c < 3; ++c) {
            EXPECT_NEAR(got.v_mean[c], world.v_mean[c], 1e-9) << c;
            EXPECT_NEAR(got.v_log_scale[c], world.v_log_scale[c], 1e-9) << c;
        }
        for (int c = 0; c < 4; ++c) EXPECT_NEAR(got.v_quat[c], world.v_quat[c], 1e-9) << c;
        EXPECT_NEAR(got.v_opacity_logit, world.v_opacity * f.opacity * (1 - f.opacity), 1e-9);
        ++checked;
    }
    EXPECT_GE(checked, 20);
}

TEST(RayModel, CameraRaysInvertTheLensModel) {
    // A pixel's ray, pushed back through the distortion and the intrinsics, lands on the pixel centre.
    for (CameraModel model : {CameraModel::pinhole, CameraModel::opencv, CameraModel::fisheye}) {
        Distortion<double> d;
        d.model = model;
        if (model == CameraModel::opencv) {
            const double k[8] = {-0.12, 0.03, 0.001, -0.002, 0.004, 0.01, -0.002, 0.001};
            for (int i = 0; i < 8; ++i) d.k[i] = k[i];
        } else if (model == CameraModel::fisheye) {
            const double k[4] = {0.05, -0.01, 0.002, -0.0005};
            for (int i = 0; i < 4; ++i) d.k[i] = k[i];
        }
        for (double px : {0.0, 101.0, 319.0})
            for (double py : {0.0, 77.0, 239.0}) {
                Vec3<double> dir;
                ASSERT_TRUE(camera_ray(250.0, 260.0, 160.0, 120.0, d, px, py, dir));
                const Vec2<double> back = distort(d, Vec2<double>{dir.x / dir.z, dir.y / dir.z});
                EXPECT_NEAR(250.0 * back.x + 160.0, px + 0.5, 1e-7);
                EXPECT_NEAR(260.0 * back.y + 120.0, py + 0.5, 1e-7);
            }
    }
}

// The silhouette bounds against brute force: every image-plane direction whose ray reaches α ≥ cutoff lies
// inside them (the binning may never miss a pixel), and they are tight (each edge is reached).
TEST(RayModel, SilhouetteBoundsCoverEveryRayThatReachesTheCutoff) {
    std::mt19937 rng(9);
    std::normal_distribution<double> n(0, 1);
    const double cutoff = 1.0 / 255;
    int bounded = 0;
    for (int trial = 0; trial < 40; ++trial) {
        const Vec3<double> mean{0.4 * n(rng), 0.4 * n(rng), 3 + 0.5 * n(rng)};
        const Vec3<double> log_scale{-1.5 + 0.5 * n(rng), -1.5 + 0.5 * n(rng), -1.5 + 0.5 * n(rng)};
        const Vec4<double> quat{n(rng), n(rng), n(rng), n(rng)};
        const double opacity = 0.05 + 0.9 * std::abs(std::tanh(n(rng)));
        const Mat3<double> l = whitening(log_scale, quat);
        const Mat3<double> r = quat_to_rotmat(quat);
        Mat3<double> s2;
        for (int i = 0; i < 3; ++i) s2.m[i][i] = std::exp(2 * log_scale[i]);
        const Mat3<double> cov = r * s2 * transpose(r);  // camera frame = world frame here
        const SilhouetteBounds<double> b = ray_silhouette(mean, cov, opacity, cutoff);
        ASSERT_NE(b.kind, Silhouette::culled);
        if (b.kind != Silhouette::bounded) continue;
        ++bounded;
        double seen_x0 = 1e9, seen_x1 = -1e9, seen_y0 = 1e9, seen_y1 = -1e9;
        const int steps = 400;
        const double lo_x = b.x0 - 0.2, hi_x = b.x1 + 0.2, lo_y = b.y0 - 0.2, hi_y = b.y1 + 0.2;
        for (int i = 0; i <= steps; ++i)
            for (int j = 0; j <= steps; ++j) {
                const double x = lo_x + (hi_x - lo_x) * i / steps, y = lo_y + (hi_y - lo_y) * j / steps;
                const RayResponse<double> h = ray_response(l, mean, opacity, {0, 0, 0}, {x, y, 1});
                if (h.alpha < cutoff) continue;
                EXPECT_GE(x, b.x0 - 1e-9);
                EXPECT_LE(x, b.x1 + 1e-9);
                EXPECT_GE(y, b.y0 - 1e-9);
                EXPECT_LE(y, b.y1 + 1e-9);
                seen_x0 = std::min(seen_x0, x), seen_x1 = std::max(seen_x1, x);
                seen_y0 = std::min(seen_y0, y), seen_y1 = std::max(seen_y1, y);
            }
        const double cell = 2 * std::max((hi_x - lo_x), (hi_y - lo_y)) / steps;
        EXPECT_NEAR(seen_x0, b.x0, cell) << trial;
        EXPECT_NEAR(seen_x1, b.x1, cell) << trial;
        EXPECT_NEAR(seen_y0, b.y0, cell) << trial;
        EXPECT_NEAR(seen_y1, b.y1, cell) << trial;
    }
    EXPECT_GE(bounded, 30);
    // Behind the camera: culled; straddling the camera plane: unbounded.
    Mat3<double> small;
    small.m[0][0] = small.m[1][1] = small.m[2][2] = 0.01;
    EXPECT_EQ(ray_silhouette<double>({0, 0, -3}, small, 0.9, cutoff).kind, Silhouette::culled);
    EXPECT_EQ(ray_silhouette<double>({0, 0, 0.1}, small, 0.9, cutoff).kind, Silhouette::unbounded);
    EXPECT_EQ(ray_silhouette<double>({0, 0, 3}, small, 0.003, cutoff).kind, Silhouette::culled);
}

}  // namespace
}  // namespace radiant
