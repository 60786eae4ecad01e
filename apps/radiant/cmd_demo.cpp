// `radiant demo`: ray-traces a small dataset of analytic shapes, trains on it with the best backend, and
// says where the report is.
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/train/demo_dataset.hpp"
#include "radiant/train/trainer.hpp"
#if RADIANT_HAS_CUDA
#include "radiant/render/cuda/cuda_check.hpp"
#endif

namespace radiant::app {

void add_demo_command(CLI::App& app) {
    struct Args {
        std::string out = "out/demo", backend = "auto";
        long steps = 0;  // 0: 2000 on the CPU, 7000 on a GPU
        DemoDatasetOptions data;
    };
    // On a GPU the demo is larger: 400×400 views, 100 of them, more surface samples, more steps.
    auto gpu_present = [](const std::string& backend) {
#if RADIANT_HAS_CUDA
        return backend != "cpu" && cuda::device_available();
#else
        (void)backend;
        return false;
#endif
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand("demo", "Make a small ray-traced dataset, train on it and write a report");
    cmd->add_option("-o,--output", a->out, "output folder (dataset in OUT/data)")->capture_default_str();
    cmd->add_option("--steps", a->steps, "training steps (default 2000 on the CPU, 7000 on a GPU)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--backend", a->backend, "auto, cpu or cuda")->capture_default_str();
    auto* width = cmd->add_option("--width", a->data.width, "image width (default 128, 400 on a GPU)")
                      ->check(CLI::Range(16, 4096));
    auto* height = cmd->add_option("--height", a->data.height, "image height (default 128, 400 on a GPU)")
                       ->check(CLI::Range(16, 4096));
    auto* views = cmd->add_option("--views", a->data.train_views, "training views (default 48, 100 on a GPU)")
                      ->check(CLI::Range(4, 1000));
    cmd->add_flag("--surface-detail", a->data.surface_detail,
                  "fine non-repeating detail on every surface, as real ones have (what `radiant prepare`'s "
                  "feature matching needs)");
    cmd->callback([a, width, height, views, gpu_present] {
        const bool gpu = gpu_present(a->backend);
        if (gpu) {
            if (!*width) a->data.width = 400;
            if (!*height) a->data.height = 400;
            if (!*views) a->data.train_views = 100;
            a->data.test_views = 10;
            a->data.points = 20000;
        }
        if (a->steps == 0) a->steps = gpu ? 7000 : 2000;
        namespace fs = std::filesystem;
        const std::string data = (fs::path(a->out) / "data").string();
        // The demo replaces an earlier demo in its folder (`make demo` again), never another run.
        std::error_code ec;
        const bool earlier_demo = fs::exists(fs::path(data) / "transforms_train.json", ec);
        const bool a_run = fs::exists(fs::path(a->out) / "checkpoint.bin", ec) ||
                           fs::exists(fs::path(a->out) / "scene.ply", ec);
        if (a_run && !earlier_demo)
            throw Error(fmt::format("{} holds a run that is not a demo: give the demo another folder with -o",
                                    a->out));
        log_info("demo: ray-tracing {} training and {} test views ({}x{}) into {}", a->data.train_views,
                 a->data.test_views, a->data.width, a->data.height, data);
        write_demo_dataset(data, a->data);
        TrainConfig c;
        c.data = data;
        c.output = a->out;
        c.steps = a->steps;
        c.eval = true;
        c.white_background = true;
        c.backend = a->backend;
        c.log_every = std::max(1L, a->steps / 100);
        c.eval_every = std::max(1L, a->steps / 6);
        // The Inria schedule scaled to the shorter run: densify over its first two thirds.
        c.adc.start = std::min(500L, a->steps / 10);
        c.adc.stop = 2 * a->steps / 3;
        c.adc.reset_every = a->steps;  // no opacity reset in so short a run
        c.overwrite = earlier_demo;
        install_interrupt_handler();
        const TrainResult r = train(c);
        if (!r.interrupted)
            log_info("demo: test PSNR {:.2f} dB, SSIM {:.4f} — open {}", r.test_psnr, r.test_ssim,
                     r.report_path);
    });
}

}  // namespace radiant::app
