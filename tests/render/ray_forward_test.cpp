// The `ray` model's CPU forward (issue 8) against brute force: every pixel's ray through the lens model,
// every Gaussian, sorted by depth, composited with the same rules. Equal images mean the silhouette binning
// never dropped a Gaussian a pixel reaches — on pinhole, radial-tangential and fisheye cameras.
#include "radiant/render/cpu/ray_forward.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "radiant/core/composite.hpp"
#include "radiant/core/demo_scene.hpp"
#include "radiant/core/distortion.hpp"
#include "radiant/render/cpu/render_cpu.hpp"
#include "support/random_scene.hpp"

namespace radiant {
namespace {

Image<double> brute_force(const SceneT<double>& s, const Camera& camera, const RenderSettings& st) {
    const PinholeParams<double> cam = pinhole_params<double>(camera);
    const Distortion<double> d = distortion_of<double>(camera);
    std::vector<std::size_t> order(s.size());
    std::iota(order.begin(), order.end(), 0);
    auto depth = [&](std::size_t g) {
        return float((cam.R * s.mean(g) + cam.t).z);
    };  // the sort key's precision
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return depth(a) < depth(b); });
    Image<double> out(camera.width, camera.height, 3);
    for (int y = 0; y < camera.height; ++y)
        for (int x = 0; x < camera.width; ++x) {
            Vec3<double> dir, c{};
            double trans = 1;
            if (camera_ray(camera.fx, camera.fy, camera.cx, camera.cy, d, double(x), double(y), dir))
                for (std::size_t g : order) {
                    const Vec3<double> m = cam.R * s.mean(g) + cam.t;
                    if (!(m.z > st.near_plane)) continue;
                    const Vec3<double> log_scale = filtered_log_scale(
                        s.log_scale(g), ray_filter_variance(m.z, st.eps2d, camera.fx, camera.fy));
                    const Mat3<double> l = whitening(log_scale, s.quat(g)) * transpose(cam.R);
                    const RayResponse<double> h =
                        ray_response(l, m, sigmoid(s.opacity_logits[g]), Vec3<double>{}, dir);
                    const double alpha = std::min(h.alpha, kMaxAlpha);
                    if (!h.in_front || alpha < st.alpha_cutoff) continue;
                    const double next = trans * (1 - alpha);
                    if (next < st.transmittance_threshold) break;
                    const Vec3<double> col = sh_to_colour(std::min(st.sh_degree, s.sh_degree), s.sh_of(g),
                                                          normalize(s.mean(g) - camera.centre()));
                    c += (alpha * trans) * col;
                    trans = next;
                }
            for (int ch = 0; ch < 3; ++ch)
                out.data[3 * (std::size_t(y) * std::size_t(camera.width) + std::size_t(x)) +
                         std::size_t(ch)] = c[ch] + trans * st.background[std::size_t(ch)];
        }
    return out;
}

TEST(RayForward, MatchesBruteForceOnPinholeAndDistortedCameras) {
    test::RandomSceneOptions o;
    o.count = 400;
    o.sh_degree = 2;
    o.log_scale_mean = -2.0;
    const SceneT<double> s = test::random_scene<double>(4, o);
    RenderSettings st;
    st.background = {0.2, 0.3, 0.4};
    st.sh_degree = 2;
    for (CameraModel model : {CameraModel::pinhole, CameraModel::opencv, CameraModel::fisheye}) {
        Camera cam = look_at({0.4, -0.3, -3.0}, {0, 0, 0}, {0, -1, 0}, 70.0, 72, 56);
        cam.model = model;
        if (model == CameraModel::opencv) cam.distortion = {-0.25, 0.08, 0.002, -0.003, -0.01};
        if (model == CameraModel::fisheye) cam.distortion = {0.08, -0.02, 0.004, -0.001};
        const ForwardResult<double> f = cpu::render_forward_ray(s, cam, st);
        const Image<double> ref = brute_force(s, cam, st);
        double worst = 0, sum = 0;
        for (std::size_t i = 0; i < ref.data.size(); ++i) {
            worst = std::max(worst, std::abs(ref.data[i] - f.rgb.data[i]));
            sum += ref.data[i];
        }
        EXPECT_LT(worst, 1e-12) << int(model);
        EXPECT_GT(f.lists.pairs(), 0u);
        // The image is not just background: the scene is in view.
        EXPECT_GT(std::abs(sum / double(ref.data.size()) - 0.3), 0.01) << int(model);
        std::printf("[ray] model %d: %zu tile pairs, worst difference %.2e\n", int(model), f.lists.pairs(),
                    worst);
    }
}

// A float render must trace the same rays as a double one: every pixel of a phone camera (fox's OpenCV
// coefficients) gets a ray in both, the float ones the double ones rounded.
TEST(RayCamera, FloatRendersGetEveryPixelsRay) {
    Camera cam = look_at({0, 0, -3}, {0, 0, 0}, {0, -1, 0}, 60.0, 270, 480);
    cam.fx = cam.fy = 1375.5 / 4;
    cam.cx = 554.558 / 4;
    cam.cy = 965.268 / 4;
    cam.model = CameraModel::opencv;
    cam.distortion = {0.0578421, -0.0805099, -0.000980296, 0.00015575};
    const TileGrid grid(cam.width, cam.height, 16);
    const cpu::RayCamera<float> f = cpu::ray_camera<float>(cam, grid);
    const cpu::RayCamera<double> d = cpu::ray_camera<double>(cam, grid);
    EXPECT_EQ(std::count(f.valid.begin(), f.valid.end(), 1), std::ptrdiff_t(f.valid.size()));
    EXPECT_EQ(f.valid, d.valid);
    double worst = 0;
    for (std::size_t i = 0; i < f.dirs.size(); ++i)
        worst = std::max({worst, std::abs(f.dirs[i].x - d.dirs[i].x), std::abs(f.dirs[i].y - d.dirs[i].y)});
    EXPECT_LT(worst, 1e-7);
}

// `shading = ray` in the settings reaches the ray model through the common entry points, and on the demo
// scene (small, near-isotropic Gaussians) the two models give nearly the same picture.
TEST(RayForward, SettingsSelectTheModelAndAgreeWithEwaOnTheDemoScene) {
    const DemoScene demo = make_demo_scene();
    const Camera cam = look_at({0, -1, -4}, {0, 0, 0}, {0, -1, 0}, 50.0, 96, 72);
    RenderSettings ewa, ray;  // both with the 0.3 px² low-pass (ray: as its 3D filter)
    ray.shading = Shading::ray;
    const Image<float> a = cpu::render_forward(demo.scene, cam, ewa).rgb;
    const Image<float> b = cpu::render_forward(demo.scene, cam, ray).rgb;
    EXPECT_EQ(b.data, cpu::render_forward_ray(demo.scene, cam, ray).rgb.data);
    double se = 0;
    for (std::size_t i = 0; i < a.data.size(); ++i) se += std::pow(double(a.data[i]) - b.data[i], 2);
    const double psnr = 10 * std::log10(double(a.data.size()) / se);
    std::printf("[ray] demo scene, ray vs ewa: PSNR %.2f dB\n", psnr);
    EXPECT_GT(psnr, 25.0);
    EXPECT_LT(psnr, 80.0);  // different models, not the same code path
}

// Sub-pixel Gaussians: the ray model's filter draws them as `ewa`'s low-pass does (each at least a ~0.55 px
// blob), where unfiltered most pixel rays pass between them.
TEST(RayForward, TheFilterDrawsSubPixelGaussiansAsEwaDoes) {
    test::RandomSceneOptions o;
    o.count = 3000;
    o.sh_degree = 0;
    o.log_scale_mean = -9;  // ~1e-4: far below a pixel
    o.log_scale_sd = 0.1;
    const Scene s = test::random_scene(12, o);
    const Camera cam = look_at({0.2, -0.3, -3.5}, {0, 0, 0}, {0, -1, 0}, 50.0, 96, 72);
    RenderSettings ewa, ray;
    ray.shading = Shading::ray;
    auto psnr = [](const Image<float>& a, const Image<float>& b) {
        double se = 0;
        for (std::size_t i = 0; i < a.data.size(); ++i) se += std::pow(double(a.data[i]) - b.data[i], 2);
        return 10 * std::log10(double(a.data.size()) / se);
    };
    const Image<float> e = cpu::render_forward(s, cam, ewa).rgb;
    const double filtered = psnr(e, cpu::render_forward(s, cam, ray).rgb);
    ray.eps2d = 0;
    const double unfiltered = psnr(e, cpu::render_forward(s, cam, ray).rgb);
    std::printf("[ray] sub-pixel Gaussians vs ewa: filtered %.2f dB, unfiltered %.2f dB\n", filtered,
                unfiltered);
    EXPECT_GT(filtered, 35.0);
    EXPECT_LT(unfiltered, filtered - 10.0);
}

// The ray model's backward against central differences of Σ w·C in double, every parameter group, on a
// distorted camera; without the anti-aliasing filter, with the default one and with a strong one (so its
// scale and depth terms carry weight).
TEST(RayBackward, AnalyticMatchesCentralDifferences) {
    test::RandomSceneOptions o;
    o.count = 60;
    o.sh_degree = 2;
    o.log_scale_mean = -1.8;
    const SceneT<double> s = test::random_scene<double>(8, o);
    for (double eps2d : {0.0, 0.3, 3.0}) {
        RenderSettings st;
        st.eps2d = eps2d;
        st.background = {0.3, 0.1, 0.6};
        Camera cam = look_at({0.3, -0.2, -3.0}, {0, 0, 0}, {0, -1, 0}, 60.0, 40, 32);
        cam.model = CameraModel::opencv;
        cam.distortion = {-0.2, 0.05, 0.001, -0.002};
        std::mt19937 rng(3);
        std::uniform_real_distribution<double> u(-1, 1);
        Image<double> weights(cam.width, cam.height, 3);
        for (double& v : weights.data) v = u(rng);
        auto loss = [&](const SceneT<double>& x) {
            const ForwardResult<double> f = cpu::render_forward_ray(x, cam, st);
            double l = 0;
            for (std::size_t i = 0; i < f.rgb.data.size(); ++i) l += weights.data[i] * f.rgb.data[i];
            return l;
        };
        const ForwardResult<double> f = cpu::render_forward_ray(s, cam, st);
        const SceneGradsT<double> g = cpu::render_backward_ray(s, cam, st, f, weights);
        struct Group {
            const char* name;
            std::vector<double> SceneT<double>::*param;
            const std::vector<double>* grad;
        };
        const Group groups[] = {{"means", &SceneT<double>::means, &g.means},
                                {"log_scales", &SceneT<double>::log_scales, &g.log_scales},
                                {"quats", &SceneT<double>::quats, &g.quats},
                                {"opacity_logits", &SceneT<double>::opacity_logits, &g.opacity_logits},
                                {"sh", &SceneT<double>::sh, &g.sh}};
        for (const Group& grp : groups) {
            const std::size_t size = (s.*grp.param).size();
            double num = 0, den = 0;
            int checked = 0;
            for (std::size_t i = 0; i < size && checked < 40; i += std::max<std::size_t>(1, size / 40)) {
                const double eps = 1e-6;
                SceneT<double> a = s, b = s;
                (a.*grp.param)[i] += eps;
                (b.*grp.param)[i] -= eps;
                const double fd = (loss(a) - loss(b)) / (2 * eps);
                num += std::pow(fd - (*grp.grad)[i], 2);
                den += fd * fd;
                ++checked;
            }
            const double rel = std::sqrt(num / std::max(den, 1e-300));
            std::printf("[ray grad] eps2d %.1f %-15s relative error %.3g over %d samples\n", eps2d, grp.name,
                        rel, checked);
            EXPECT_GT(den, 0) << grp.name << ": no gradient signal";
            EXPECT_LT(rel, 1e-5) << grp.name << " eps2d " << eps2d;
        }
    }
}

}  // namespace
}  // namespace radiant
