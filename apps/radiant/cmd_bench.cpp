// `radiant bench`: the DESIGN.md §7 benchmark scene, per-stage step timings (CUDA events, medians after a
// warm-up), tile pairs and peak device memory; `--cpu` times the CPU reference instead.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>

#include "commands.hpp"
#include "radiant/core/bench_scene.hpp"
#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/render/cpu/render_cpu.hpp"
#include "radiant/train/adam.hpp"
#include "radiant/train/loss.hpp"
#ifdef RADIANT_HAS_CUDA
#include "radiant/render/cuda/cuda_check.hpp"
#include "radiant/train/cuda_step.hpp"
#endif

namespace radiant::app {
namespace {

struct BenchArgs {
    std::size_t n = 1000000;
    int width = 1920, height = 1080, steps = 20, warmup = 5;
    bool heavier = false, cpu = false, json = false, trace = false;
    bool sh_rows = false;  // Adam reads the SH gradient rows instead of forming them from their sources
    Shading shading = Shading::ewa;
    CameraModel lens = CameraModel::pinhole;
    int replay_rows = 0, direct_lanes = -1;  // backward layout experiments (0 / -1: radiant's choice)
    int tile_size = RenderSettings{}.tile_size;
};

// A lens of a phone camera's strength for `ray` rows (the fox dataset's OpenCV coefficients; a mild
// equidistant fisheye): what the model costs when every pixel's ray bends.
void set_lens(Camera& cam, CameraModel lens) {
    cam.model = lens;
    if (lens == CameraModel::opencv) cam.distortion = {0.0578421, -0.0805099, -0.000980296, 0.00015575};
    if (lens == CameraModel::fisheye) cam.distortion = {0.05, -0.01, 0.002, -0.0005};
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

Image<float> random_target(int w, int h) {
    Image<float> t(w, h, 3);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(0, 1);
    for (float& v : t.data) v = u(rng);
    return t;
}

void report(const BenchArgs& a, const std::string& device,
            const std::vector<std::pair<std::string, double>>& rows, std::size_t pairs, std::size_t peak) {
    if (a.json) {
        nlohmann::json j;
        j["device"] = device;
        j["gaussians"] = a.n;
        j["width"] = a.width;
        j["height"] = a.height;
        j["heavier"] = a.heavier;
        j["trace_mode"] = a.trace ? "trace" : "replay";
        j["shading"] = to_string(a.shading);
        j["lens"] = to_string(a.lens);
        j["steps"] = a.steps;
        j["tile_size"] = a.tile_size;
        j["sh_grads"] = a.sh_rows ? "rows" : "sources";
        j["tile_pairs"] = pairs;
        j["peak_memory_bytes"] = peak;
        for (const auto& [k, v] : rows) j["ms"][k] = v;
        std::printf("%s\n", j.dump(2).c_str());
        return;
    }
    std::printf(
        "%s — %zu Gaussians%s @ %dx%d, %s shading (%s lens), %s mode, %d-pixel tiles, median of %d steps\n",
        device.c_str(), a.n, a.heavier ? " (heavier)" : "", a.width, a.height, to_string(a.shading),
        to_string(a.lens), a.trace ? "trace" : "replay", a.tile_size, a.steps);
    for (const auto& [k, v] : rows) std::printf("  %-10s %8.3f ms\n", k.c_str(), v);
    std::printf("  tile pairs %zu\n  peak memory %.2f GiB\n", pairs, double(peak) / (1024.0 * 1024 * 1024));
}

void run_cpu(const BenchArgs& a, const Scene& scene, const Camera& cam, const RenderSettings& s) {
    const Image<float> target = random_target(a.width, a.height);
    std::vector<double> fwd, loss, bwd, adam, step;
    std::size_t pairs = 0;
    Scene p = scene;
    AdamState st;
    st.reset_like(p);
    const LearningRates lr{1.6e-4, 5e-3, 1e-3, 5e-2, 2.5e-3, 1.25e-4};
    for (int i = 0; i < a.warmup + a.steps; ++i) {
        using clock = std::chrono::steady_clock;
        const auto t0 = clock::now();
        const ForwardResult<float> f = cpu::render_forward(p, cam, s);
        const auto t1 = clock::now();
        Image<float> v_rgb;
        photometric_loss(f.rgb, target, 0.0, &v_rgb);
        const auto t2 = clock::now();
        const SceneGrads g = cpu::render_backward(p, cam, s, f, v_rgb);
        const auto t3 = clock::now();
        adam_step(p, g, st, lr, AdamConfig{});
        const auto t4 = clock::now();
        pairs = f.lists.pairs();
        if (i < a.warmup) continue;
        auto ms = [](auto x, auto y) { return std::chrono::duration<double, std::milli>(y - x).count(); };
        fwd.push_back(ms(t0, t1));
        loss.push_back(ms(t1, t2));
        bwd.push_back(ms(t2, t3));
        adam.push_back(ms(t3, t4));
        step.push_back(ms(t0, t4));
    }
    report(a, "CPU reference",
           {{"forward", median(fwd)},
            {"loss", median(loss)},
            {"backward", median(bwd)},
            {"adam", median(adam)},
            {"step", median(step)}},
           pairs, 0);
}

void run(const BenchArgs& a) {
    if (a.steps < 1 || a.warmup < 0) throw Error("--steps must be positive and --warmup non-negative");
    const Scene scene = make_bench_scene({a.n, a.heavier, 0});
    Camera cam = bench_camera(a.width, a.height);
    set_lens(cam, a.lens);
    if (a.lens != CameraModel::pinhole && a.shading == Shading::ewa)
        throw Error("--lens needs --shading ray (ewa draws an ideal pinhole)");
    RenderSettings s;
    s.shading = a.shading;
    s.trace_mode = a.trace ? TraceMode::trace : TraceMode::replay;
    s.max_splat_steps = a.trace ? 256 : 0;
    s.tile_size = a.tile_size;
    if (a.cpu) return run_cpu(a, scene, cam, s);
#ifdef RADIANT_HAS_CUDA
    if (!cuda::device_available()) throw Error("no CUDA device; use --cpu for the CPU reference");
    CudaStep gpu;
    gpu.set_scene(scene);
    gpu.set_replay_rows(a.replay_rows);
    if (a.direct_lanes >= 0) gpu.set_direct_lanes(a.direct_lanes);
    gpu.set_sh_grads_as_sources(!a.sh_rows);
    gpu.set_target(random_target(a.width, a.height));
    const LearningRates lr{1.6e-4, 5e-3, 1e-3, 5e-2, 2.5e-3, 1.25e-4};
    const char* names[] = {"project",  "bin",      "sort", "forward", "loss",
                           "backward", "geometry", "adam", "step"};
    std::vector<std::vector<double>> t(9);
    for (int i = 0; i < a.warmup + a.steps; ++i) {
        StepTimings st;
        gpu.step(cam, s, lr, AdamConfig{}, &st);
        if (i < a.warmup) continue;
        const double v[] = {st.project,  st.bin,      st.sort, st.forward, st.loss,
                            st.backward, st.geometry, st.adam, st.step};
        for (int k = 0; k < 9; ++k) t[std::size_t(k)].push_back(v[k]);
    }
    std::vector<std::pair<std::string, double>> rows;
    for (int k = 0; k < 9; ++k) rows.push_back({names[k], median(t[std::size_t(k)])});
    report(a, cuda::device_name(), rows, gpu.tile_pairs(), gpu.peak_bytes());
#else
    throw Error("radiant was built without CUDA; use --cpu");
#endif
}

}  // namespace

void add_bench_command(CLI::App& app) {
    auto a = std::make_shared<BenchArgs>();
    auto* cmd = app.add_subcommand("bench", "Time the training step on the DESIGN.md §7 benchmark scene");
    cmd->add_option("-n,--gaussians", a->n, "Gaussians")->capture_default_str();
    cmd->add_option("--width", a->width, "image width")->check(CLI::Range(16, 16384))->capture_default_str();
    cmd->add_option("--height", a->height, "image height")
        ->check(CLI::Range(16, 16384))
        ->capture_default_str();
    cmd->add_option("--steps", a->steps, "timed steps (median)")->capture_default_str();
    cmd->add_option("--warmup", a->warmup, "untimed steps first")->capture_default_str();
    cmd->add_flag("--heavier", a->heavier, "the heavier scene (log-scale mean ln 0.03)");
    cmd->add_flag("--trace", a->trace, "trace mode (stored hits) instead of replay");
    cmd->add_option("--shading", a->shading, "ewa or ray")
        ->transform(CLI::CheckedTransformer(
            std::map<std::string, Shading>{{"ewa", Shading::ewa}, {"ray", Shading::ray}}))
        ->capture_default_str();
    cmd->add_option("--lens", a->lens, "the camera's lens for --shading ray: pinhole, opencv or fisheye")
        ->transform(
            CLI::CheckedTransformer(std::map<std::string, CameraModel>{{"pinhole", CameraModel::pinhole},
                                                                       {"opencv", CameraModel::opencv},
                                                                       {"fisheye", CameraModel::fisheye}}))
        ->capture_default_str();
    cmd->add_option("--replay-rows", a->replay_rows,
                    "pixels a thread of the replay backward takes: 1, 2 or 4 (0: by the image's tile count)")
        ->check(CLI::IsMember({0, 1, 2, 4}));
    cmd->add_option(
           "--direct-lanes", a->direct_lanes,
           "entries hit by at most this many lanes of a warp skip its reduction (0–32; default radiant's)")
        ->check(CLI::Range(-1, 32));
    cmd->add_option("--tile-size", a->tile_size, "tile edge in pixels: 8 or 16")
        ->check(CLI::IsMember({8, 16}))
        ->capture_default_str();
    cmd->add_flag("--sh-rows", a->sh_rows,
                  "the geometry backward writes the SH gradient rows and Adam reads them (before: Adam forms "
                  "them from each Gaussian's colour gradient and view direction)");
    cmd->add_flag("--cpu", a->cpu, "time the CPU reference instead of CUDA");
    cmd->add_flag("--json", a->json, "JSON output");
    cmd->callback([a] { run(*a); });
}

}  // namespace radiant::app
