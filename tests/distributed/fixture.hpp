#pragma once
// The distributed tests' data: a scene to train, photos of another scene it should become, and the cameras
// that took them (every third a close-up, so that views differ in cost as a capture's do).
#include <cstdint>
#include <utility>
#include <vector>

#include "radiant/distributed/communicator.hpp"
#include "radiant/distributed/gaussian_parallel.hpp"
#include "radiant/distributed/parallel_training.hpp"
#include "radiant/render/cpu/render_cpu.hpp"
#include "support/random_scene.hpp"

namespace radiant::distributed::test_data {

struct Fixture {
    Scene start;
    std::vector<Camera> cameras;
    std::vector<Image<float>> targets;
    RenderSettings settings;

    // ray: the `ray` model through a phone-strength OpenCV lens (the distorted cameras gsplat's distributed
    // mode cannot train).
    explicit Fixture(int views, bool ray = false) {
        test::RandomSceneOptions o;
        o.count = 3000;
        o.sh_degree = 1;
        start = test::random_scene(1, o);
        // Pairs at one position (the same depth in every view), as a clone leaves them: the order of equal
        // depths decides what is in front, and it must be the same whatever rank each Gaussian lives on.
        for (std::size_t i = 0; i < 300; ++i)
            for (std::size_t a = 0; a < 3; ++a) start.means[3 * (1500 + i) + a] = start.means[3 * i + a];
        const Scene truth = test::random_scene(2, o);
        settings.background = {0.2, 0.1, 0.3};
        if (ray) settings.shading = Shading::ray;
        for (int v = 0; v < views; ++v) {
            // Every third view a close-up: views of very different cost, as a capture's are.
            cameras.push_back(test::random_camera(std::uint32_t(10 + v), 96, 72, v % 3 == 0 ? 1.8 : 4.0));
            if (ray) {
                cameras.back().model = CameraModel::opencv;
                cameras.back().distortion = {-0.12, 0.03, 0.001, -0.0015};
            }
            targets.push_back(cpu::render_forward(truth, cameras.back(), settings).rgb);
        }
    }

    // Step k's batch: `size` views, walking through the cameras.
    BatchStepInput batch(int k, int size) const {
        BatchStepInput in;
        in.settings = settings;
        in.lr = {1.6e-3, 5e-3, 1e-3, 5e-2, 2.5e-3, 1.25e-4};
        for (int j = 0; j < size; ++j) {
            const std::size_t v = view_of(k, j, size);
            in.views.push_back({&cameras[v], &targets[v], v});
        }
        return in;
    }
    std::size_t view_of(int k, int j, int size) const { return std::size_t(k * size + j) % cameras.size(); }
};

// 40 steps of batches of 4: ADC from step 5 to 30, one opacity reset (step 20), a checkpoint every 15 steps.
inline ParallelTrainConfig short_run(const std::string& output) {
    ParallelTrainConfig c;
    c.steps = 40;
    c.batch = 4;
    c.sh_degree = 1;
    c.sh_interval = 20;
    c.extent = 2.0;
    c.seed = 3;
    c.adc.start = 5;
    c.adc.interval = 10;
    c.adc.stop = 30;
    c.adc.grad_threshold = 2e-5;
    c.adc.percent_dense = 0.05;
    c.adc.min_opacity = 0.05;
    c.adc.reset_every = 20;  // one reset, at step 20
    c.checkpoint_every = 15;
    c.output = output;
    return c;
}

// A saved run continued on `ranks` in-process ranks, each from its part of the state (part_of), with
// `config`; rank 0's result.
inline ParallelTrainResult continue_on(int ranks, const Checkpoint& saved,
                                       const std::vector<BatchView>& views,
                                       const ParallelTrainConfig& config) {
    ParallelTrainResult out;
    run_in_process(ranks, [&](Communicator& comm) {
        const Checkpoint part = part_of(saved, comm.rank(), comm.size());
        ParallelTrainConfig c = config;
        c.resume = &part;
        ParallelTrainResult r = train_gaussian_parallel(comm, Scene{}, views, c);
        if (comm.rank() == 0) out = std::move(r);
    });
    return out;
}

}  // namespace radiant::distributed::test_data
