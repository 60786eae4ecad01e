// CPU reference forward and backward on the DESIGN.md §7 benchmark scene (issue 3's micro-benchmark).
// Run: build/bench/radiant_bench_cpu [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <random>

#include "radiant/core/bench_scene.hpp"
#include "radiant/render/cpu/render_cpu.hpp"

namespace radiant {
namespace {

struct Problem {
    Scene scene;
    Camera camera;
    RenderSettings settings;
    Image<float> target;
};

const Problem& problem(std::size_t n, int size, TraceMode mode) {
    static Problem p;
    static std::size_t cached_n = 0;
    static int cached_size = 0;
    if (cached_n != n || cached_size != size) {
        p.scene = make_bench_scene({n, false, 0});
        p.camera = bench_camera(size, size);
        p.target = Image<float>(size, size, 3);
        std::mt19937 rng(1);
        std::uniform_real_distribution<float> u(0, 1);
        for (float& v : p.target.data) v = u(rng);
        cached_n = n;
        cached_size = size;
    }
    p.settings.trace_mode = mode;
    p.settings.max_splat_steps = mode == TraceMode::trace ? 512 : 0;
    return p;
}

// ∂L1/∂C, the pixel gradient the benchmark's L1 loss gives.
Image<float> l1_grad(const Image<float>& rgb, const Image<float>& target) {
    Image<float> g(rgb.width, rgb.height, 3);
    const float scale = 1.0f / float(rgb.data.size());
    for (std::size_t i = 0; i < g.data.size(); ++i)
        g.data[i] = rgb.data[i] > target.data[i] ? scale : (rgb.data[i] < target.data[i] ? -scale : 0.0f);
    return g;
}

void BM_Forward(benchmark::State& state) {
    const Problem& p = problem(std::size_t(state.range(0)), int(state.range(1)), TraceMode::replay);
    std::size_t pairs = 0;
    for (auto _ : state) {
        auto f = cpu::render_forward(p.scene, p.camera, p.settings);
        pairs = f.lists.pairs();
        benchmark::DoNotOptimize(f.rgb.data.data());
    }
    state.counters["tile_pairs"] = double(pairs);
}

void BM_Backward(benchmark::State& state) {
    const TraceMode mode = state.range(2) ? TraceMode::trace : TraceMode::replay;
    const Problem& p = problem(std::size_t(state.range(0)), int(state.range(1)), mode);
    const auto f = cpu::render_forward(p.scene, p.camera, p.settings);
    const Image<float> v_rgb = l1_grad(f.rgb, p.target);
    for (auto _ : state) {
        auto g = cpu::render_backward(p.scene, p.camera, p.settings, f, v_rgb);
        benchmark::DoNotOptimize(g.means.data());
    }
}

BENCHMARK(BM_Forward)->Args({10000, 256})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Backward)
    ->Args({10000, 256, 0})
    ->Args({10000, 256, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace radiant

BENCHMARK_MAIN();
