// Issue 25's run over ranks as `radiant train --gpus N` and mpirun start it: the settings each rank trains
// with (N views a step, so 1/N of the steps, schedules compressed alike, learning rates × √N), what it
// refuses, and a whole run on two in-process CPU ranks from a dataset folder to the scored, merged scene.
#include "radiant/distributed/distributed_train.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cmath>
#include <filesystem>

#include "radiant/core/error.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/ply.hpp"
#include "radiant/train/demo_dataset.hpp"
#include "support/temp_dir.hpp"

namespace radiant::distributed {
namespace {

TEST(DistributedTrain, SettingsScaleWithTheRanks) {
    TrainConfig c;
    c.checkpoint_every = 7000;
    const ParallelTrainConfig one = parallel_config(c, 1, 2.0);
    EXPECT_EQ(one.steps, c.steps);
    EXPECT_EQ(one.batch, 1);
    EXPECT_EQ(one.adc.start, c.adc.start);
    EXPECT_EQ(one.adc.interval, c.adc.interval);
    EXPECT_EQ(one.adc.grad_threshold, c.adc.grad_threshold);
    EXPECT_EQ(one.lr.means_init, c.lr.means_init);
    EXPECT_EQ(one.extent, 2.0);
    EXPECT_EQ(one.backend, "cuda");

    const ParallelTrainConfig four = parallel_config(c, 4, 2.0);
    EXPECT_EQ(four.batch, 4);
    EXPECT_EQ(four.steps, 7500);  // 30000 views, 4 a step
    EXPECT_EQ(four.sh_interval, 250);
    EXPECT_EQ(four.adc.start, 125);
    EXPECT_EQ(four.adc.stop, 3750);
    EXPECT_EQ(four.adc.interval, 25);
    EXPECT_EQ(four.adc.reset_every, 750);
    EXPECT_EQ(four.checkpoint_every, 1750);
    EXPECT_DOUBLE_EQ(four.adc.grad_threshold, c.adc.grad_threshold / 4);
    EXPECT_DOUBLE_EQ(four.lr.means_init, 2 * c.lr.means_init);
    EXPECT_DOUBLE_EQ(four.lr.sh_rest, 2 * c.lr.sh_rest);
    EXPECT_DOUBLE_EQ(four.lr.quats, 2 * c.lr.quats);
    EXPECT_EQ(four.mcmc.interval, 25);
    EXPECT_EQ(parallel_config(c, 3, 1.0).steps, 10000);
    EXPECT_EQ(parallel_config(c, 7, 1.0).steps, 4286);  // rounded up

    c.backend = "cpu";
    EXPECT_EQ(parallel_config(c, 2, 1.0).backend, "cpu");
}

TEST(DistributedTrain, RefusesWhatTheLoopDoesNotDo) {
    auto refused = [](const std::function<void(TrainConfig&)>& set, const std::string& named) {
        TrainConfig c;
        set(c);
        try {
            parallel_config(c, 2, 1.0);
            ADD_FAILURE() << named << " was not refused";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
        }
    };
    refused([](TrainConfig& c) { c.pose.enabled = true; }, "--pose-opt");
    refused([](TrainConfig& c) { c.appearance.model = AppearanceModel::exposure; }, "--appearance");
    refused([](TrainConfig& c) { c.resolution_schedule = "2:1000"; }, "--resolution-schedule");
    refused([](TrainConfig& c) { c.adam_scope = AdamScope::visible; }, "--adam-scope visible");
    refused([](TrainConfig& c) { c.random_background = true; }, "--random-bg");
    refused([](TrainConfig& c) { c.export_formats = "spz"; }, "--export");
    refused([](TrainConfig& c) { c.eval_every = 100; }, "--eval-every");
}

// Two ranks (threads) train a demo capture from its folder: one merged scene.ply, config.json, metrics.json
// and eval.json written by rank 0, the test views scored; the run refuses to train over itself after.
TEST(DistributedTrain, TwoCpuRanksTrainADatasetFolderToAScoredScene) {
    test::TempDir dir;
    DemoDatasetOptions d;
    d.width = d.height = 48;
    d.train_views = 12;
    d.test_views = 3;
    d.points = 1500;
    write_demo_dataset((dir / "data").string(), d);
    TrainConfig c;
    c.data = (dir / "data").string();
    c.output = (dir / "run").string();
    c.backend = "cpu";
    c.eval = true;
    c.white_background = true;  // as `radiant demo` trains its captures
    c.steps = 240;              // 120 steps of 2 views
    c.sh_degree = 1;
    c.sh_interval = 60;
    c.adc.start = 60;
    c.adc.interval = 30;
    c.adc.stop = 180;
    c.adc.reset_every = 0;
    c.log_every = 100;
    TrainConfig single = c;  // the same views, one at a time, on one process
    single.output = (dir / "single").string();
    const TrainResult one = train(single);
    std::vector<TrainResult> results(2);
    run_in_process(
        2, [&](Communicator& comm) { results[std::size_t(comm.rank())] = train_distributed(c, comm); });
    const TrainResult& r = results[0];
    std::printf(
        "[distributed train] 2 CPU ranks, %ld steps of 2 views: %zu Gaussians, test PSNR %.2f dB; one "
        "process, %ld steps: %zu Gaussians, %.2f dB\n",
        r.steps, r.gaussians, r.test_psnr, one.steps, one.gaussians, one.test_psnr);
    EXPECT_EQ(r.steps, 120);
    EXPECT_EQ(results[1].steps, 120);
    EXPECT_EQ(results[1].gaussians, r.gaussians);
    EXPECT_TRUE(results[1].outputs.empty());
    for (const char* f : {"scene.ply", "config.json", "metrics.json", "eval.json"})
        EXPECT_TRUE(std::filesystem::exists(dir / "run" / f)) << f;
    EXPECT_EQ(read_ply((dir / "run" / "scene.ply").string()).size(), r.gaussians);
    EXPECT_EQ(r.views.size(), 3u);
    EXPECT_GT(r.test_psnr, one.test_psnr - 1.0);
    const nlohmann::json m = nlohmann::json::parse(read_file((dir / "run" / "metrics.json").string()));
    EXPECT_EQ(m["ranks"], 2);
    // The one-GPU default visible_sh is not what the ranks' Adam does: the run records all.
    EXPECT_EQ(c.adam_scope, AdamScope::visible_sh);
    EXPECT_EQ(
        config_from_json(read_file((dir / "run" / "config.json").string()), "config.json", {}).adam_scope,
        AdamScope::all);
    EXPECT_EQ(m["views_per_step"], 2);
    EXPECT_EQ(m["batch_steps"], 120);
    EXPECT_EQ(m["share_sizes"][0].get<std::size_t>() + m["share_sizes"][1].get<std::size_t>(), r.gaussians);
    EXPECT_DOUBLE_EQ(m["test_psnr"].get<double>(), r.test_psnr);
    // The folder now holds a run: another is refused on every rank, not trained over it.
    EXPECT_THROW(run_in_process(2, [&](Communicator& comm) { train_distributed(c, comm); }), Error);
}

// `radiant train --gpus 2` stopped (Ctrl-C) and continued with `--resume OUT --gpus 2`: rank 0 wrote the
// whole state to checkpoint.bin, the ranks deal it out again, and the run ends as the one never stopped
// (the same scene.ply bytes and step count). Continuing on another number of ranks, or on one process, is
// refused with the command that works; so is continuing a one-process run over ranks.
TEST(DistributedTrain, AStoppedRunOverRanksResumesFromItsCheckpoint) {
    test::TempDir dir;
    DemoDatasetOptions d;
    d.width = d.height = 40;
    d.train_views = 8;
    d.test_views = 2;
    d.points = 1000;
    write_demo_dataset((dir / "data").string(), d);
    TrainConfig c;
    c.data = (dir / "data").string();
    c.backend = "cpu";
    c.eval = true;
    c.white_background = true;
    c.steps = 120;  // 60 steps of 2 views
    c.sh_degree = 1;
    c.sh_interval = 40;
    c.adc.start = 20;
    c.adc.interval = 20;
    c.adc.stop = 100;
    c.adc.reset_every = 0;
    c.log_every = 100;
    auto on_two = [&](const std::function<TrainResult(Communicator&)>& run) {
        std::vector<TrainResult> results(2);
        run_in_process(2, [&](Communicator& comm) { results[std::size_t(comm.rank())] = run(comm); });
        return results[0];
    };
    TrainConfig whole = c;
    whole.output = (dir / "whole").string();
    const TrainResult uninterrupted =
        on_two([&](Communicator& comm) { return train_distributed(whole, comm); });

    TrainConfig part = c;
    part.output = (dir / "part").string();
    std::atomic<int> polls{0};
    const TrainResult stopped = on_two([&](Communicator& comm) {
        // Polled while the photos load, then once a step on each rank: stops part way, between two rounds.
        return train_distributed(part, comm, [&] { return ++polls > 2 * 24; });
    });
    ASSERT_TRUE(stopped.interrupted);
    EXPECT_GT(stopped.steps, 10);
    EXPECT_LT(stopped.steps, 50);
    ASSERT_TRUE(std::filesystem::exists(dir / "part" / "checkpoint.bin"));
    const std::string part_dir = (dir / "part").string();

    auto refused = [](const std::function<void()>& f, const std::string& says) {
        try {
            f();
            ADD_FAILURE() << "not refused: " << says;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
        }
    };
    refused([&] { resume(part_dir); }, "--gpus 2");
    refused([&] { run_in_process(3, [&](Communicator& comm) { resume_distributed(part_dir, {}, comm); }); },
            "--gpus 2");

    const TrainResult continued =
        on_two([&](Communicator& comm) { return resume_distributed(part_dir, {}, comm); });
    std::printf(
        "[distributed resume] stopped at %ld, continued to %ld: %zu Gaussians (uninterrupted %zu), "
        "test PSNR %.2f dB (%.2f)\n",
        stopped.steps, continued.steps, continued.gaussians, uninterrupted.gaussians, continued.test_psnr,
        uninterrupted.test_psnr);
    EXPECT_FALSE(continued.interrupted);
    EXPECT_EQ(continued.steps, 60);
    EXPECT_TRUE(read_file((dir / "part" / "scene.ply").string()) ==
                read_file((dir / "whole" / "scene.ply").string()))
        << "the resumed run's scene.ply differs from the uninterrupted run's";
    EXPECT_DOUBLE_EQ(continued.test_psnr, uninterrupted.test_psnr);

    // A run on one process continues on one process.
    TrainConfig single = c;
    single.output = (dir / "single").string();
    single.steps = 20;
    train(single);
    refused(
        [&] { run_in_process(2, [&](Communicator& comm) { resume_distributed(single.output, {}, comm); }); },
        "without --gpus");
}

}  // namespace
}  // namespace radiant::distributed
