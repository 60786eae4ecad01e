// Issue 19: a user's runs are never damaged — resume writes to the folder named, a failed or repeated train
// leaves a finished run alone, signals end a run promptly and cleanly, renders never share a file name.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>

#include "radiant/core/error.hpp"
#include "radiant/io/camera_json.hpp"
#include "radiant/io/file.hpp"
#include "radiant/train/demo_dataset.hpp"
#include "radiant/train/trainer.hpp"
#include "support/temp_dir.hpp"

namespace radiant {
namespace {
namespace fs = std::filesystem;

TrainConfig tiny_run(const test::TempDir& dir, const std::string& out, int test_views = 2) {
    DemoDatasetOptions d;
    d.width = d.height = 32;
    d.train_views = 9;
    d.test_views = test_views;
    d.points = 400;
    if (!fs::exists(dir / "data")) write_demo_dataset((dir / "data").string(), d);
    TrainConfig c;
    c.data = (dir / "data").string();
    c.output = (dir / out).string();
    c.backend = "cpu";
    c.steps = 60;
    c.eval = true;
    c.white_background = true;
    c.sh_degree = 1;
    c.adc.start = 10;
    c.adc.stop = 40;
    c.adc.interval = 10;
    c.adc.reset_every = 1000;
    c.log_every = 10;
    return c;
}

// Item 1: the folder named is the run, wherever it was first written.
TEST(RunFolder, ResumeWritesToTheFolderNamedAndCanExtendTheRun) {
    test::TempDir dir;
    TrainHooks stop_at_30;
    stop_at_30.after_step = [](long step) { return step < 30; };
    ASSERT_TRUE(train(tiny_run(dir, "run"), stop_at_30).interrupted);
    fs::copy(dir / "run", dir / "copy", fs::copy_options::recursive);
    fs::rename(dir / "run", dir / "moved");
    const TrainResult copied = resume((dir / "copy").string());
    EXPECT_EQ(copied.steps, 60);
    EXPECT_TRUE(fs::exists(dir / "copy/scene.ply"));
    EXPECT_FALSE(fs::exists(dir / "moved/scene.ply"));  // the original is not touched
    EXPECT_FALSE(fs::exists(dir / "run"));
    const TrainResult moved = resume((dir / "moved").string());
    EXPECT_EQ(moved.steps, 60);
    EXPECT_EQ(read_file((dir / "copy/scene.ply").string()), read_file((dir / "moved/scene.ply").string()));
    // A finished run extended with more steps.
    ResumeChanges more;
    more.steps = 80;
    EXPECT_EQ(resume((dir / "copy").string(), more).steps, 80);
    EXPECT_NE(read_file((dir / "copy/config.json").string()).find("\"steps\": 80"), std::string::npos);
    more.steps = 40;  // fewer steps than it has done
    EXPECT_THROW(resume((dir / "copy").string(), more), Error);
    EXPECT_THROW(resume((dir / "nothing_here").string()), IoError);
}

// Item 2: nothing is written before everything is checked; a folder holding a run is replaced only when
// asked, and then its stale outputs go first.
TEST(RunFolder, AFailedOrRepeatedTrainLeavesAFinishedRunAlone) {
    test::TempDir dir;
    const TrainConfig good = tiny_run(dir, "run");
    train(good);
    const std::string config = read_file((dir / "run/config.json").string());
    const std::string scene = read_file((dir / "run/scene.ply").string());
    TrainConfig typo = good;
    typo.data = (dir / "no_such_dataset").string();
    EXPECT_THROW(train(typo), Error);
    TrainConfig bad_backend = good;
    bad_backend.backend = "tpu";
    EXPECT_THROW(train(bad_backend), Error);
    // A valid run into the same folder is refused, naming the way out.
    try {
        train(good);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("--force"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("--resume"), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_file((dir / "run/config.json").string()), config);
    EXPECT_EQ(read_file((dir / "run/scene.ply").string()), scene);
    // --force: the earlier outputs are removed before the new run writes its own.
    write_file_atomic((dir / "run/scene.spz").string(), "stale");
    write_file_atomic((dir / "run/renders/old_view.png").string(), "stale");
    TrainConfig force = good;
    force.overwrite = true;
    force.steps = 20;
    EXPECT_EQ(train(force).steps, 20);
    EXPECT_FALSE(fs::exists(dir / "run/scene.spz"));
    EXPECT_FALSE(fs::exists(dir / "run/renders/old_view.png"));
    EXPECT_TRUE(fs::exists(dir / "run/scene.ply"));
}

// Item 3: Ctrl-C or SIGTERM before the first step ends the run with nothing written; during the steps, with
// a checkpoint at the step reached.
TEST(RunFolder, SignalsEndTheRunPromptlyWithACheckpointWhenThereIsAStep) {
    test::TempDir dir;
    install_interrupt_handler();
    TrainHooks early;
    early.on_images = [](std::vector<TargetImage>&) { std::raise(SIGINT); };  // while loading
    EXPECT_THROW(train(tiny_run(dir, "early"), early), Interrupted);
    EXPECT_FALSE(fs::exists(dir / "early/config.json"));
    EXPECT_FALSE(fs::exists(dir / "early/checkpoint.bin"));

    install_interrupt_handler();  // a new run in the same process starts uninterrupted
    TrainHooks term;
    term.before_step = [](long step, Backend&) {
        if (step == 25) std::raise(SIGTERM);
    };
    const TrainResult r = train(tiny_run(dir, "term"), term);
    install_interrupt_handler();
    EXPECT_TRUE(r.interrupted);
    EXPECT_EQ(r.steps, 25);
    EXPECT_TRUE(fs::exists(dir / "term/checkpoint.bin"));
    EXPECT_FALSE(fs::exists(dir / "term/scene.ply"));
    EXPECT_EQ(resume((dir / "term").string()).steps, 60);
}

// Item 5: NeRF-synthetic's test/r_000 and train/r_000 get renders of their own.
TEST(RunFolder, RenderNamesAreUniqueAcrossSplits) {
    test::TempDir dir;
    // Without --eval every view trains and every 8th in name order is scored: test/r_000 and, eight views
    // on, train/r_000.
    TrainConfig c = tiny_run(dir, "run", 8);
    c.eval = false;
    c.steps = 5;
    const TrainResult r = train(c);
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir / "run/renders")) files += e.is_regular_file();
    EXPECT_EQ(files, r.views.size());
    EXPECT_TRUE(fs::exists(dir / "run/renders/test_r_000.png"));
    EXPECT_TRUE(fs::exists(dir / "run/renders/train_r_000.png"));
}

// Item 6: the run folder holds every view's camera as training rendered it, with its split, so `radiant
// render RUN --views test` and `--orbit` need nothing else.
TEST(RunFolder, CamerasJsonHoldsEveryViewWithItsSplit) {
    test::TempDir dir;
    TrainConfig c = tiny_run(dir, "run", 3);
    c.steps = 5;
    train(c);
    std::vector<std::string> splits;
    const std::vector<Camera> cams = read_cameras_json((dir / "run/cameras.json").string(), &splits);
    ASSERT_EQ(cams.size(), 12u);
    EXPECT_EQ(std::count(splits.begin(), splits.end(), "test"), 3);
    EXPECT_EQ(std::count(splits.begin(), splits.end(), "train"), 9);
    EXPECT_EQ(cams[0].name, "test/r_000.png");
    EXPECT_EQ(cams[0].width, 32);
    EXPECT_EQ(splits[0], "test");
}

// Issue 20 item 4: --profile times every Nth step stage by stage without changing the run; the means reach
// metrics.json and the report.
TEST(RunFolder, ProfileTimesStagesWithoutChangingTheRun) {
    test::TempDir dir;
    TrainConfig plain = tiny_run(dir, "plain");
    plain.steps = 40;
    TrainConfig timed = plain;
    timed.output = (dir / "timed").string();
    timed.profile_every = 10;
    train(plain);
    train(timed);
    EXPECT_EQ(read_file((dir / "plain/scene.ply").string()), read_file((dir / "timed/scene.ply").string()));
    const std::string metrics = read_file((dir / "timed/metrics.json").string());
    EXPECT_EQ(read_file((dir / "plain/metrics.json").string()).find("\"profile\""), std::string::npos);
    ASSERT_NE(metrics.find("\"profile\""), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("\"steps_timed\": 4"), std::string::npos) << metrics;
    for (const char* stage : {"\"forward\"", "\"loss\"", "\"backward\"", "\"adam\"", "\"densify_calls\": 2"})
        EXPECT_NE(metrics.find(stage), std::string::npos) << stage;
    EXPECT_NE(read_file((dir / "timed/report.html").string()).find("Where the time goes"), std::string::npos);
}

}  // namespace
}  // namespace radiant
