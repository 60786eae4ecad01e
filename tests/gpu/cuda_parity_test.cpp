// CUDA vs the CPU reference (issues 6, 8; ctest label `gpu`): images, gradients of every group for both
// shading models (`ray` on pinhole, radial-tangential and fisheye cameras), Adam updates.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "radiant/core/bench_scene.hpp"
#include "radiant/render/cpu/render_cpu.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#include "radiant/render/cuda/rasterizer.hpp"
#include "radiant/train/cuda_step.hpp"
#include "radiant/train/loss.hpp"
#include "support/random_scene.hpp"

namespace radiant {
namespace {

#define REQUIRE_GPU() \
    if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device"

struct Compare {
    double cosine = 1, rel = 0;
};

Compare compare(const std::vector<float>& gpu, const std::vector<float>& cpu) {
    double dot = 0, ng = 0, nc = 0, diff = 0;
    for (std::size_t i = 0; i < cpu.size(); ++i) {
        dot += double(gpu[i]) * cpu[i];
        ng += double(gpu[i]) * gpu[i];
        nc += double(cpu[i]) * cpu[i];
        diff += (double(gpu[i]) - cpu[i]) * (double(gpu[i]) - cpu[i]);
    }
    if (nc == 0 && ng == 0) return {};
    return {dot / std::sqrt(ng * nc), std::sqrt(diff / nc)};
}

Image<float> random_image(std::uint32_t seed, int w, int h, float scale) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> n(0, scale);
    Image<float> img(w, h, 3);
    for (float& v : img.data) v = n(rng);
    return img;
}

struct Case {
    const char* name;
    bool bench_scene;
    int count, sh_degree, width, height;
    TraceMode mode;
    Shading shading = Shading::ewa;
    CameraModel lens = CameraModel::pinhole;
    bool antialiased = false;
    int tile_size = 16;  // training picks 8 or 16 by timing (TileTuner): both must match the reference
};

// Lens coefficients of the strength phone and action cameras have.
void set_lens(Camera& cam, CameraModel lens) {
    cam.model = lens;
    if (lens == CameraModel::opencv) cam.distortion = {-0.12, 0.03, 0.001, -0.0015};
    if (lens == CameraModel::fisheye) cam.distortion = {0.05, -0.01, 0.002, -0.0005};
}

class CudaParity : public ::testing::TestWithParam<Case> {};

TEST_P(CudaParity, ImagesAndGradientsMatchTheCpuReference) {
    REQUIRE_GPU();
    const Case c = GetParam();
    Scene scene;
    Camera cam;
    if (c.bench_scene) {
        scene = make_bench_scene({std::size_t(c.count), false, 3});
        cam = bench_camera(c.width, c.height);
    } else {
        test::RandomSceneOptions o;
        o.count = c.count;
        o.sh_degree = c.sh_degree;
        scene = test::random_scene(std::uint32_t(c.count + c.width), o);
        cam = test::random_camera(std::uint32_t(c.height), c.width, c.height);
    }
    set_lens(cam, c.lens);
    RenderSettings s;
    s.shading = c.shading;
    s.trace_mode = c.mode;
    s.max_splat_steps = c.mode == TraceMode::trace ? 512 : 0;
    s.background = {0.1, 0.3, 0.2};
    s.antialiased = c.antialiased;
    s.tile_size = c.tile_size;
    CudaStep gpu;
    gpu.set_scene(scene);
    const Image<float> img_gpu = gpu.render(cam, s);
    const ForwardResult<float> fwd = cpu::render_forward(scene, cam, s);
    double mean_abs = 0;
    for (std::size_t i = 0; i < fwd.rgb.data.size(); ++i)
        mean_abs += std::abs(double(img_gpu.data[i]) - fwd.rgb.data[i]);
    mean_abs /= double(fwd.rgb.data.size());
    EXPECT_LT(mean_abs, 1e-5) << c.name;
    // The exact ellipse–tile (`ray`: silhouette–tile) test runs in float on both, but rounding may differ: a
    // footprint that grazes a tile corner may land on either side (1 pair in 75k on bench_n50k at
    // radius 3.33).
    const double pairs = double(fwd.lists.pairs());
    EXPECT_LE(std::abs(double(gpu.tile_pairs()) - pairs), std::max(1.0, 1e-4 * pairs)) << c.name;

    const Image<float> v_rgb = random_image(7, c.width, c.height, 1.0f / float(c.width * c.height));
    const SceneGrads g_gpu = gpu.gradients(cam, s, v_rgb);
    const SceneGrads g_cpu = cpu::render_backward(scene, cam, s, fwd, v_rgb);
    const std::pair<const char*, std::pair<const std::vector<float>*, const std::vector<float>*>> groups[] = {
        {"means", {&g_gpu.means, &g_cpu.means}},
        {"log_scales", {&g_gpu.log_scales, &g_cpu.log_scales}},
        {"quats", {&g_gpu.quats, &g_cpu.quats}},
        {"opacity_logits", {&g_gpu.opacity_logits, &g_cpu.opacity_logits}},
        {"sh", {&g_gpu.sh, &g_cpu.sh}},
        {"mean2d_grad_norms", {&g_gpu.mean2d_grad_norms, &g_cpu.mean2d_grad_norms}}};
    for (const auto& [name, pair] : groups) {
        const Compare r = compare(*pair.first, *pair.second);
        std::printf("[parity] %-24s %-18s cosine %.8f  relative error %.2e\n", c.name, name, r.cosine, r.rel);
        EXPECT_GT(r.cosine, 0.9999) << c.name << " " << name;
        EXPECT_LT(r.rel, 1e-3) << c.name << " " << name;
    }
    std::printf("[parity] %-24s image mean abs %.2e, %zu tile pairs\n", c.name, mean_abs, gpu.tile_pairs());

    // The replay backward's other layouts, each against the CPU reference (bit for bit they differ only in
    // summation order): 1, 2 or 4 pixels a thread (by image size; these images are small enough to get 1 on a
    // large GPU), and entries few lanes hit added by those lanes' atomics (none, up to 4, every entry).
    auto expect_layout_matches = [&](const char* layout, int value) {
        const SceneGrads g = gpu.gradients(cam, s, v_rgb);
        using Field = std::vector<float> SceneGrads::*;
        const std::pair<const char*, Field> fields[] = {
            {"means", &SceneGrads::means}, {"log_scales", &SceneGrads::log_scales},
            {"quats", &SceneGrads::quats}, {"opacity_logits", &SceneGrads::opacity_logits},
            {"sh", &SceneGrads::sh},       {"mean2d_grad_norms", &SceneGrads::mean2d_grad_norms}};
        for (const auto& [name, field] : fields) {
            const Compare r = compare(g.*field, g_cpu.*field);
            EXPECT_GT(r.cosine, 0.9999) << c.name << " " << name << " " << layout << " " << value;
            EXPECT_LT(r.rel, 1e-3) << c.name << " " << name << " " << layout << " " << value;
        }
    };
    if (c.mode == TraceMode::replay) {
        for (int rows : {1, 2, 4}) {
            gpu.set_replay_rows(rows);
            expect_layout_matches("rows", rows);
        }
        gpu.set_replay_rows(0);
        for (int lanes : {0, 4, 32}) {
            gpu.set_direct_lanes(lanes);
            expect_layout_matches("direct lanes", lanes);
        }
        gpu.set_direct_lanes(cuda::kDefaultDirectLanes);
    }

    // `radiant render`'s layers: the same colour, coverage and expected depth as the CPU reference.
    const RenderLayers layers = gpu.render_layers(cam, s, true);
    ASSERT_EQ(layers.alpha.data.size(), fwd.alpha.data.size());
    ASSERT_EQ(layers.depth.data.size(), fwd.depth.data.size());
    double alpha_err = 0, depth_err = 0, depth_scale = 0;
    for (std::size_t i = 0; i < fwd.alpha.data.size(); ++i) {
        alpha_err +=
            std::abs(double(layers.alpha.data[i]) - fwd.alpha.data[i]) / double(fwd.alpha.data.size());
        depth_err += std::abs(double(layers.depth.data[i]) - fwd.depth.data[i]);
        depth_scale += std::abs(double(fwd.depth.data[i]));
    }
    std::printf("[parity] %-24s alpha mean abs %.2e, depth relative %.2e\n", c.name, alpha_err,
                depth_err / std::max(depth_scale, 1e-30));
    // Median depth: the same hit's z (to float rounding: the two backends compute z apart) wherever both
    // cross ½ at the same hit; a pixel whose T lands within rounding of ½ may pick the neighbouring hit.
    ASSERT_EQ(layers.median_depth.data.size(), fwd.median_depth.data.size());
    std::size_t median_differs = 0;
    double median_rel = 0;
    for (std::size_t i = 0; i < fwd.median_depth.data.size(); ++i) {
        const double cpu = fwd.median_depth.data[i], gpu_z = layers.median_depth.data[i];
        const double rel = std::abs(gpu_z - cpu) / std::max(std::abs(cpu), 1e-30);
        if (rel > 1e-5)
            ++median_differs;
        else
            median_rel = std::max(median_rel, rel);
    }
    std::printf("[parity] %-24s median depth: %zu pixels at another hit, others within %.1e\n", c.name,
                median_differs, median_rel);
    EXPECT_LE(double(median_differs), 1e-3 * double(fwd.median_depth.data.size()) + 1) << c.name;
    EXPECT_LT(alpha_err, 1e-5) << c.name;
    EXPECT_LT(depth_err / std::max(depth_scale, 1e-30), 1e-5) << c.name;
    EXPECT_EQ(layers.rgb.data, img_gpu.data) << c.name << ": depth changed the colour";
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, CudaParity,
    ::testing::Values(Case{"random_n300_sh3", false, 300, 3, 97, 61, TraceMode::replay},
                      Case{"random_n2000_sh1", false, 2000, 1, 200, 150, TraceMode::replay},
                      Case{"random_n2000_sh2_trace", false, 2000, 2, 130, 77, TraceMode::trace},
                      Case{"random_n5000_sh0", false, 5000, 0, 256, 256, TraceMode::replay},
                      Case{"bench_n50k_480x270", true, 50000, 3, 480, 270, TraceMode::replay},
                      Case{"bench_n50k_trace", true, 50000, 3, 480, 270, TraceMode::trace},
                      Case{"ray_random_n2000_pinhole", false, 2000, 2, 200, 150, TraceMode::replay,
                           Shading::ray},
                      Case{"ray_random_n2000_opencv", false, 2000, 3, 160, 120, TraceMode::replay,
                           Shading::ray, CameraModel::opencv},
                      Case{"ray_random_n2000_fisheye_trace", false, 2000, 1, 130, 77, TraceMode::trace,
                           Shading::ray, CameraModel::fisheye},
                      Case{"ray_bench_n50k_opencv", true, 50000, 3, 480, 270, TraceMode::replay, Shading::ray,
                           CameraModel::opencv},
                      Case{"antialiased_random_n2000", false, 2000, 3, 200, 150, TraceMode::replay,
                           Shading::ewa, CameraModel::pinhole, true},
                      Case{"antialiased_bench_n50k", true, 50000, 3, 480, 270, TraceMode::replay,
                           Shading::ewa, CameraModel::pinhole, true},
                      Case{"tile8_random_n2000", false, 2000, 3, 200, 150, TraceMode::replay, Shading::ewa,
                           CameraModel::pinhole, false, 8},
                      Case{"tile8_bench_n50k", true, 50000, 3, 480, 270, TraceMode::replay, Shading::ewa,
                           CameraModel::pinhole, false, 8},
                      Case{"tile8_trace", false, 2000, 2, 130, 77, TraceMode::trace, Shading::ewa,
                           CameraModel::pinhole, false, 8},
                      Case{"tile8_ray_opencv", false, 2000, 3, 160, 120, TraceMode::replay, Shading::ray,
                           CameraModel::opencv, false, 8},
                      Case{"tile8_antialiased_bench_n50k", true, 50000, 3, 480, 270, TraceMode::replay,
                           Shading::ewa, CameraModel::pinhole, true, 8},
                      // over 65,536 tiles: the pair sort's 4-byte tile keys (2-byte below)
                      Case{"tile8_wide_keys_2112x2112", false, 3000, 1, 2112, 2112, TraceMode::replay,
                           Shading::ewa, CameraModel::pinhole, false, 8}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(CudaAdam, MatchesTheCpuOptimizerToFloatRounding) {
    REQUIRE_GPU();
    test::RandomSceneOptions o;
    o.count = 5000;
    Scene scene = test::random_scene(11, o);
    SceneGrads g;
    g.resize_like(scene);
    std::mt19937 rng(2);
    std::normal_distribution<float> n(0, 1e-3f);
    for (auto* v : {&g.means, &g.log_scales, &g.quats, &g.opacity_logits, &g.sh})
        for (float& x : *v) x = n(rng);
    g.means[5] = NAN;  // the guard treats it as 0 on both
    LearningRates lr{1e-3, 5e-3, 1e-3, 5e-2, 2.5e-3, 1.25e-4};
    AdamConfig cfg;
    CudaStep gpu;
    gpu.set_scene(scene);
    AdamState cpu_state;
    cpu_state.reset_like(scene);
    Scene cpu = scene;
    for (int step = 0; step < 3; ++step) {
        gpu.apply_adam(g, lr, cfg);
        adam_step(cpu, g, cpu_state, lr, cfg);
    }
    const Scene out = gpu.scene();
    auto max_diff = [](const std::vector<float>& a, const std::vector<float>& b) {
        double d = 0;
        for (std::size_t i = 0; i < a.size(); ++i)
            d = std::max(d, double(std::abs(a[i] - b[i])) / (1 + std::abs(b[i])));
        return d;
    };
    EXPECT_LT(max_diff(out.means, cpu.means), 1e-6);
    EXPECT_LT(max_diff(out.log_scales, cpu.log_scales), 1e-6);
    EXPECT_LT(max_diff(out.quats, cpu.quats), 1e-6);
    EXPECT_LT(max_diff(out.opacity_logits, cpu.opacity_logits), 1e-6);
    EXPECT_LT(max_diff(out.sh, cpu.sh), 1e-6);
    const AdamState gs = gpu.adam();
    EXPECT_LT(max_diff(gs.v.sh, cpu_state.v.sh), 1e-6);
    EXPECT_EQ(gs.step, 3);
}

TEST(CudaStepLoss, L1MatchesTheCpuLoss) {
    REQUIRE_GPU();
    const Scene scene = make_bench_scene({20000, false, 5});
    const Camera cam = bench_camera(320, 180);
    Image<float> target = random_image(3, 320, 180, 1.0f);
    for (float& v : target.data) v = std::abs(v) > 1 ? 0.5f : std::abs(v);
    CudaStep gpu;
    gpu.set_scene(scene);
    gpu.set_target(target);
    RenderSettings s;
    const ForwardResult<float> fwd = cpu::render_forward(scene, cam, s);
    const double cpu_l1 = photometric_loss(fwd.rgb, target, 0.0, static_cast<Image<float>*>(nullptr)).l1;
    StepTimings t;
    const double l1 = gpu.step(cam, s, LearningRates{}, AdamConfig{}, &t);
    EXPECT_NEAR(l1, cpu_l1, 1e-5);
    EXPECT_GT(t.step, 0.0);
}

}  // namespace
}  // namespace radiant
