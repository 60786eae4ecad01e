#include "radiant/train/trainer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/ply.hpp"
#include "radiant/train/backend.hpp"
#include "radiant/train/checkpoint.hpp"
#include "radiant/train/demo_dataset.hpp"
#include "radiant/train/memory_cap.hpp"
#include "support/random_scene.hpp"
#include "support/temp_dir.hpp"

namespace radiant {
namespace {

TrainConfig small_run(const test::TempDir& dir, const std::string& out) {
    DemoDatasetOptions d;
    d.width = d.height = 40;
    d.train_views = 10;
    d.test_views = 2;
    d.points = 800;
    if (!std::filesystem::exists(dir / "data")) write_demo_dataset((dir / "data").string(), d);
    TrainConfig c;
    c.data = (dir / "data").string();
    c.output = (dir / out).string();
    c.steps = 120;
    c.eval = true;
    c.white_background = true;
    c.log_every = 10;
    c.adc.start = 20;
    c.adc.stop = 100;
    c.adc.interval = 20;
    c.adc.reset_every = 60;
    c.sh_degree = 1;
    return c;
}

// The run, with the warnings it logged.
TrainResult train_keeping_warnings(const TrainConfig& c, const TrainHooks& hooks,
                                   std::vector<std::string>& warnings) {
    set_log_sink([&](LogLevel level, std::string_view m) {
        if (level == LogLevel::warn) warnings.emplace_back(m);
    });
    const TrainResult r = train(c, hooks);
    set_log_sink(nullptr);
    return r;
}

TEST(Trainer, ResumeEqualsAnUninterruptedRun) {
    test::TempDir dir;
    const TrainConfig full = small_run(dir, "full");
    const TrainResult a = train(full);
    ASSERT_FALSE(a.interrupted);

    const TrainConfig part = small_run(dir, "part");
    TrainHooks stop_at_70;  // after densification and an opacity reset
    stop_at_70.after_step = [](long step) { return step < 70; };
    const TrainResult b = train(part, stop_at_70);
    ASSERT_TRUE(b.interrupted);
    EXPECT_EQ(b.steps, 70);
    EXPECT_FALSE(std::filesystem::exists(dir / "part/scene.ply"));
    const TrainResult c = resume(part.output);
    ASSERT_FALSE(c.interrupted);
    EXPECT_EQ(read_file((dir / "full/scene.ply").string()), read_file((dir / "part/scene.ply").string()));
    EXPECT_DOUBLE_EQ(a.test_psnr, c.test_psnr);
    EXPECT_EQ(a.gaussians, c.gaussians);
}

// Issue 22: the per-image appearance (its parameters, moments and step counts) is in the checkpoint, so
// a resumed run with it still equals the uninterrupted one; and a checkpoint of another model is refused.
TEST(Trainer, ResumeWithAppearanceEqualsAnUninterruptedRun) {
    test::TempDir dir;
    TrainConfig full = small_run(dir, "full");
    full.appearance.model = AppearanceModel::bilateral;
    const TrainResult a = train(full);
    TrainConfig part = small_run(dir, "part");
    part.appearance.model = AppearanceModel::bilateral;
    TrainHooks stop_at_70;
    stop_at_70.after_step = [](long step) { return step < 70; };
    ASSERT_TRUE(train(part, stop_at_70).interrupted);
    const Checkpoint ck = read_checkpoint((dir / "part/checkpoint.bin").string());
    EXPECT_EQ(ck.state.appearance.model, AppearanceModel::bilateral);
    EXPECT_EQ(ck.state.appearance.images(), 12u);
    const TrainResult c = resume(part.output);
    EXPECT_EQ(read_file((dir / "full/scene.ply").string()), read_file((dir / "part/scene.ply").string()));
    EXPECT_DOUBLE_EQ(a.test_psnr, c.test_psnr);
    EXPECT_EQ(read_checkpoint((dir / "full/checkpoint.bin").string()).state.appearance.params,
              read_checkpoint((dir / "part/checkpoint.bin").string()).state.appearance.params);
}

TEST(Trainer, ShortRunLearnsAndWritesEveryOutput) {
    test::TempDir dir;
    TrainConfig c = small_run(dir, "out");
    c.steps = 400;
    c.adc.stop = 140;  // 14k Gaussians at the end (stop 300 grew 41k on 40x40 images: 200 s under ASan)
    c.adc.reset_every = 1000;
    c.eval_every = 200;
    const TrainResult r = train(c);
    EXPECT_GT(r.test_psnr, 20.0);  // the floor a working trainer clears easily on this scene
    for (const char* f : {"scene.ply", "config.json", "metrics.json", "report.html", "checkpoint.bin"})
        EXPECT_TRUE(std::filesystem::exists(dir / ("out/" + std::string(f)))) << f;
    EXPECT_TRUE(std::filesystem::exists(dir / "out/renders/test_r_000.png"));
    const Scene s = read_ply((dir / "out/scene.ply").string());
    EXPECT_EQ(s.size(), r.gaussians);
    EXPECT_EQ(s.sh_degree, 1);
    const std::string html = read_file((dir / "out/report.html").string());
    EXPECT_NE(html.find("<svg"), std::string::npos);
    EXPECT_NE(html.find("data:image/png;base64,"), std::string::npos);
    EXPECT_EQ(html.find("http"), std::string::npos);  // self-contained
    // eval re-evaluates the saved model to the same numbers
    const TrainResult e = evaluate_model(c.output, "", "cpu");
    EXPECT_NEAR(e.test_psnr, r.test_psnr, 1e-9);
}

// --pose-opt with tracking rounds and --eval-pose-fit run end to end: cameras.json has the refined poses,
// metrics.json says how far the test poses were fitted, and `radiant eval` re-scores with a fit or without.
// (One round, at step 100: rounds on a scene only 40 steps old pull the poses after its errors — 14.5 dB
// against 16.4 here.)
TEST(Trainer, PoseTrackingRoundsAndTestPoseFitsRun) {
    test::TempDir dir;
    TrainConfig c = small_run(dir, "out");
    c.pose.enabled = true;
    c.pose.track_every = 100;
    c.pose.track_iters = 15;
    c.eval_pose_fit = 15;
    const TrainResult r = train(c);
    std::printf("[pose tracking] %.3f dB\n", r.test_psnr);
    EXPECT_GT(r.test_psnr, 15.0);
    EXPECT_TRUE(std::filesystem::exists(dir / "out/cameras.json"));
    const nlohmann::json m = nlohmann::json::parse(r.metrics_json);
    ASSERT_TRUE(m.contains("eval_pose_fit"));
    EXPECT_EQ(m["eval_pose_fit"]["steps"], 15);
    EXPECT_GT(m["eval_pose_fit"]["mean_turn_deg"].get<double>(), 0.0);
    const TrainResult again = evaluate_model(c.output, "", "cpu");
    EXPECT_NEAR(again.test_psnr, r.test_psnr, 1e-9);  // the run's own fit, deterministic on the CPU
    const TrainResult given = evaluate_model(c.output, "", "cpu", std::nullopt, std::nullopt, 0);
    EXPECT_FALSE(nlohmann::json::parse(given.metrics_json).contains("eval_pose_fit"));
    EXPECT_NE(given.test_psnr, r.test_psnr);
    EXPECT_THROW(evaluate_model(c.output, "", "cpu", std::nullopt, std::nullopt, 5), Error);
}

TEST(Trainer, McmcKeepsTheBudget) {
    test::TempDir dir;
    TrainConfig c = small_run(dir, "mcmc");
    c.strategy = "mcmc";
    c.mcmc.max_gaussians = 900;
    c.mcmc.start = 20;
    c.mcmc.interval = 20;
    c.init_opacity = 0.5;
    const TrainResult r = train(c);
    EXPECT_EQ(r.gaussians, 900u);
    EXPECT_GT(r.test_psnr, 15.0);
}

// Issue 9 item 4: faults injected into a running backend.
TEST(Trainer, GaussiansMadeNonFiniteAreRemovedAndTheRunCompletes) {
    test::TempDir dir;
    TrainConfig c = small_run(dir, "clean");
    c.adc.start = 1000;  // no densification: Gaussian counts stay comparable
    const TrainResult clean = train(c);

    c.output = (dir / "faulty").string();
    TrainHooks inject;
    inject.before_step = [](long step, Backend& b) {
        if (step != 30) return;
        TrainState s = b.save();
        s.params.means[3 * 5 + 1] = NAN;
        s.params.log_scales[3 * 9] = INFINITY;
        s.params.sh[std::size_t(s.params.sh_coeffs()) * 3 * 12 + 2] = NAN;  // reaches only the colour
        s.params.opacity_logits[20] = -INFINITY;
        b.load(s);
    };
    std::vector<std::string> warnings;
    const TrainResult faulty = train_keeping_warnings(c, inject, warnings);

    EXPECT_EQ(faulty.gaussians, clean.gaussians - 4);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0], "step 30: removed 4 Gaussians with non-finite parameters (4 values)");
    const Scene out = read_ply((dir / "faulty/scene.ply").string());
    for (const std::vector<float>* v :
         {&out.means, &out.log_scales, &out.quats, &out.opacity_logits, &out.sh})
        for (float x : *v) ASSERT_TRUE(std::isfinite(x));
    EXPECT_NEAR(faulty.test_psnr, clean.test_psnr, 0.5);  // four of 800 Gaussians lost, nothing else
}

// A Gaussian whose only non-finite values are SH is culled from every view (its colour is not finite), so
// under the default Adam scope, visible_sh, Adam never reads those values: the scan before the outputs
// removes it. Under all, Adam finds it at the step it was broken.
TEST(Trainer, AGaussianWithOnlyItsShBrokenNeverReachesTheScene) {
    test::TempDir dir;
    TrainConfig c = small_run(dir, "clean");
    c.adc.start = 1000;
    const TrainResult clean = train(c);
    for (AdamScope scope : {AdamScope::visible_sh, AdamScope::all}) {
        c.adam_scope = scope;
        c.output = (dir / (std::string("faulty_") + to_string(scope))).string();
        TrainHooks inject;
        inject.before_step = [](long step, Backend& b) {
            if (step != 30) return;
            TrainState s = b.save();
            s.params.sh[std::size_t(s.params.sh_coeffs()) * 3 * 12 + 2] = NAN;  // DC: the colour
            b.load(s);
        };
        std::vector<std::string> warnings;
        const TrainResult faulty = train_keeping_warnings(c, inject, warnings);
        EXPECT_EQ(faulty.gaussians, clean.gaussians - 1) << to_string(scope);
        ASSERT_EQ(warnings.size(), 1u) << to_string(scope);
        EXPECT_EQ(warnings[0],
                  scope == AdamScope::all
                      ? "step 30: removed 1 Gaussians with non-finite parameters (1 values)"
                      : "removed 1 Gaussians with non-finite parameters before writing the scene "
                        "(1 values)");
        const Scene out = read_ply((dir / c.output / "scene.ply").string());
        for (float x : out.sh) ASSERT_TRUE(std::isfinite(x)) << to_string(scope);
    }
}

// Issue 9 item 5: --max-gaussians caps the default strategy too; the cap is said once.
TEST(Trainer, MaxGaussiansCapsTheDefaultStrategy) {
    test::TempDir dir;
    TrainConfig c = small_run(dir, "free");
    const TrainResult free = train(c);
    c.output = (dir / "capped").string();
    c.adc.max_gaussians = 900;
    ASSERT_GT(free.gaussians, 900u)
        << "the uncapped run must grow past the cap for this test to mean anything";
    std::vector<std::string> warnings;
    const TrainResult capped = train_keeping_warnings(c, {}, warnings);
    EXPECT_LE(capped.gaussians, 900u);
    for (const auto& h : read_checkpoint((dir / "capped/checkpoint.bin").string()).history)
        EXPECT_LE(h.gaussians, 900u) << "step " << h.step;
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("reached the cap of 900 (--max-gaussians)"), std::string::npos) << warnings[0];
}

// A GPU allocation failing mid-run (stood in for by the hook) stops the run with the step, the count and
// the flags to change.
TEST(Trainer, OutOfMemoryMidRunNamesTheStepAndWhatToChange) {
    test::TempDir dir;
    TrainConfig c = small_run(dir, "out");
    c.checkpoint_every = 20;
    TrainHooks fail;
    fail.before_step = [](long step, Backend&) {
        if (step == 50) throw OutOfMemory("GPU out of memory allocating 2.00 GiB");
    };
    try {
        train(c, fail);
        ADD_FAILURE() << "no error";
    } catch (const OutOfMemory& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("GPU out of memory allocating 2.00 GiB, at step 50 with "), std::string::npos) << m;
        EXPECT_NE(m.find("--max-gaussians"), std::string::npos) << m;
        EXPECT_NE(m.find("--downscale 2"), std::string::npos) << m;
        EXPECT_NE(m.find("the last checkpoint, step 40,"), std::string::npos) << m;
    }
    EXPECT_FALSE(std::filesystem::exists(dir / "out/scene.ply"));
}

TEST(MemoryCap, LearnsBytesPerGaussianFromThePeak) {
    MemoryCap cap;
    EXPECT_EQ(cap.max_gaussians(), 0u);  // nothing seen yet
    MemoryUse m;
    m.budget = 1000000;
    m.images = 100000;
    m.peak = 300000;  // 200,000 bytes for 1000 Gaussians: 200 each
    cap.observe(m, 1000, false);
    EXPECT_EQ(cap.max_gaussians(), 2025u);  // 0.9 · 900,000 / (2 · 200): twice until a densification
    cap.observe(m, 1000, true);
    EXPECT_EQ(cap.max_gaussians(), 4050u);
    m.budget = 0;  // no budget (the CPU backend)
    cap.observe(m, 1000, true);
    EXPECT_EQ(cap.max_gaussians(), 0u);
    EXPECT_EQ(min_cap(0, 5), 5u);
    EXPECT_EQ(min_cap(7, 0), 7u);
    EXPECT_EQ(min_cap(7, 5), 5u);
}

TEST(Trainer, ADivergingLossStopsTheRunWithoutOutputs) {
    test::TempDir dir;
    TrainConfig c = small_run(dir, "out");
    c.steps = 400;
    c.adc.start = 1000;
    c.diverge_patience = 100;
    c.checkpoint_every = 50;
    TrainHooks inject;  // colours blown up at step 60, as a far too high SH learning rate would
    inject.before_step = [](long step, Backend& b) {
        if (step != 60) return;
        TrainState s = b.save();
        for (float& x : s.params.sh) x = 1e4f;
        b.load(s);
    };
    try {
        train(c, inject);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("training diverged: the loss has stayed above 2x its level"), std::string::npos)
            << m;
        EXPECT_NE(m.find("since step 6"), std::string::npos) << m;
        EXPECT_NE(m.find("the last checkpoint, step 150"), std::string::npos) << m;
    }
    EXPECT_FALSE(std::filesystem::exists(dir / "out/scene.ply"));
    EXPECT_FALSE(std::filesystem::exists(dir / "out/metrics.json"));
}

// Issue 8: `--shading ray` trains (CPU reference), is recorded in config.json, and `radiant eval` renders the
// saved model with it again.
TEST(Trainer, RayShadingTrainsAndEvaluatesWithRay) {
    test::TempDir dir;
    TrainConfig c = small_run(dir, "ray");
    c.render.shading = Shading::ray;
    c.adc.stop = 60;  // the serial CPU ray backward is slow under the sanitizers: keep the scene small
    const TrainResult r = train(c);
    EXPECT_GT(r.test_psnr, 15.0);
    EXPECT_NE(read_file((dir / "ray/config.json").string()).find("\"shading\": \"ray\""), std::string::npos);
    const TrainResult e = evaluate_model(c.output, "", "cpu");
    EXPECT_NEAR(e.test_psnr, r.test_psnr, 1e-9);
}

// Issue 20 item 3: `--preset fast` is a base recipe that a config file and flags override, and a run's
// config.json names it and holds its settings (so a resume continues the same recipe).
TEST(TrainConfig, PresetsAreBasesOtherSettingsOverride) {
    const TrainConfig fast = preset_config("fast");
    EXPECT_EQ(fast.preset, "fast");
    EXPECT_LT(fast.steps, TrainConfig{}.steps);
    EXPECT_LT(fast.adc.stop, fast.steps);
    EXPECT_LT(fast.sh_interval * 3, fast.steps);  // every SH band gets steps of its own
    EXPECT_EQ(preset_config("default").steps, TrainConfig{}.steps);
    EXPECT_THROW(preset_config("quick"), Error);
    const TrainConfig over = config_from_json(R"({"steps": 5000})", "c.json", fast);
    EXPECT_EQ(over.steps, 5000);
    EXPECT_EQ(over.sh_interval, fast.sh_interval);
    const TrainConfig back = config_from_json(config_to_json(fast), "config.json", TrainConfig{});
    EXPECT_EQ(back.preset, "fast");
    EXPECT_EQ(back.adc.stop, fast.adc.stop);
    TrainConfig bad = fast;
    bad.data = "d";
    bad.sh_interval = 0;
    EXPECT_THROW(validate(bad), Error);
}

TEST(TrainConfig, JsonRoundTripAndUnknownKeys) {
    TrainConfig c;
    c.data = "somewhere";
    c.steps = 1234;
    c.strategy = "mcmc";
    c.render.trace_mode = TraceMode::trace;
    c.render.max_splat_steps = 64;
    c.adc.grad_threshold = 3e-4;
    const TrainConfig back = config_from_json(config_to_json(c), "c.json", TrainConfig{});
    EXPECT_EQ(config_to_json(back), config_to_json(c));
    EXPECT_EQ(back.steps, 1234);
    EXPECT_EQ(back.render.trace_mode, TraceMode::trace);
    EXPECT_EQ(config_from_json(R"({"shading": "ray"})", "c.json", TrainConfig{}).render.shading,
              Shading::ray);
    EXPECT_THROW(config_from_json(R"({"shading": "splat"})", "c.json", TrainConfig{}), IoError);
    EXPECT_THROW(config_from_json(R"({"stepz": 3})", "c.json", TrainConfig{}), IoError);
    EXPECT_THROW(config_from_json(R"({"steps": "many"})", "c.json", TrainConfig{}), IoError);
    TrainConfig bad = c;
    bad.strategy = "greedy";
    EXPECT_THROW(validate(bad), Error);
}

// adam_scope, and the boolean visible_adam that configs and checkpoints carried before it: a run written then
// resumes with the Adam it started with, not today's default.
TEST(TrainConfig, AdamScopeAndTheOlderVisibleAdamKey) {
    auto scope = [](const char* text) { return config_from_json(text, "c.json", TrainConfig{}).adam_scope; };
    EXPECT_EQ(TrainConfig{}.adam_scope, AdamScope::visible_sh);
    EXPECT_EQ(scope("{}"), AdamScope::visible_sh);
    EXPECT_EQ(scope(R"({"adam_scope": "all"})"), AdamScope::all);
    EXPECT_EQ(scope(R"({"adam_scope": "visible"})"), AdamScope::visible);
    EXPECT_EQ(scope(R"({"visible_adam": false})"), AdamScope::all);
    EXPECT_EQ(scope(R"({"visible_adam": true})"), AdamScope::visible);
    EXPECT_THROW(scope(R"({"adam_scope": "seen"})"), IoError);
    EXPECT_THROW(scope(R"({"visible_adam": "yes"})"), IoError);
    EXPECT_THROW(scope(R"({"adam_scope": "all", "visible_adam": true})"), IoError);
    TrainConfig c;
    c.adam_scope = AdamScope::visible;
    EXPECT_NE(config_to_json(c).find(R"("adam_scope": "visible")"), std::string::npos);
    EXPECT_EQ(config_to_json(c).find("visible_adam"), std::string::npos);
}

TEST(Checkpoint, CorruptFilesAreErrors) {
    test::TempDir dir;
    EXPECT_THROW(read_checkpoint((dir / "missing.bin").string()), IoError);
    write_file_atomic((dir / "bad.bin").string(), "RADCKPT1\x05");
    EXPECT_THROW(read_checkpoint((dir / "bad.bin").string()), IoError);
    write_file_atomic((dir / "magic.bin").string(), "NOTACKPTxxxxxxxx");
    EXPECT_THROW(read_checkpoint((dir / "magic.bin").string()), IoError);
}

// A multi-GPU run's section (its rank count and the Gaussians' ids) comes back as written, and ids that
// cannot be a run's (out of order, repeated, too few) are errors naming the file.
TEST(Checkpoint, RanksSectionRoundTripsAndRefusesBadIds) {
    test::TempDir dir;
    Checkpoint ck;
    ck.config_json = "{}";
    ck.step = 7;
    test::RandomSceneOptions o;
    o.count = 5;
    o.sh_degree = 1;
    ck.state.params = test::random_scene(3, o);
    ck.state.adam.reset_like(ck.state.params);
    ck.state.stats.reset(5);
    ck.ranks = 4;
    ck.ids = {0, 2, 3, 9, 11};
    const std::string path = (dir / "ck.bin").string();
    write_checkpoint(path, ck);
    const Checkpoint back = read_checkpoint(path);
    EXPECT_EQ(back.ranks, 4);
    EXPECT_EQ(back.ids, ck.ids);
    EXPECT_EQ(back.step, 7);
    // Without the section: a run on one process.
    Checkpoint single = ck;
    single.ranks = 0;
    write_checkpoint(path, single);
    EXPECT_EQ(read_checkpoint(path).ranks, 0);
    EXPECT_TRUE(read_checkpoint(path).ids.empty());
    auto refused = [&](const std::function<void(Checkpoint&)>& spoil, const std::string& says) {
        Checkpoint bad = ck;
        spoil(bad);
        write_checkpoint(path, bad);
        try {
            read_checkpoint(path);
            ADD_FAILURE() << "read: " << says;
        } catch (const IoError& e) {
            EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("ck.bin"), std::string::npos) << e.what();
        }
    };
    refused([](Checkpoint& c) { c.ids = {0, 3, 2, 9, 11}; }, "not increasing");
    refused([](Checkpoint& c) { c.ids = {0, 2, 2, 9, 11}; }, "not increasing");
    refused([](Checkpoint& c) { c.ids = {0, 2, 3}; }, "do not match");
}

}  // namespace
}  // namespace radiant
