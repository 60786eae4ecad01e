// Issue 24: `radiant prepare` poses photos and videos of the demo scene with COLMAP, as close as structure
// from motion gets to the cameras that took them, and explains when it cannot.
#include "radiant/prepare/prepare.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>

#include "radiant/core/error.hpp"
#include "radiant/io/colmap.hpp"
#include "radiant/io/dataset.hpp"
#include "radiant/io/image_io.hpp"
#include "radiant/prepare/subprocess.hpp"
#include "radiant/train/demo_dataset.hpp"
#include "support/similarity.hpp"
#include "support/temp_dir.hpp"

namespace radiant {
namespace {
namespace fs = std::filesystem;

// COLMAP and ffmpeg are installed by scripts/install-deps.sh; CI must run these tests, not skip them.
bool tools_missing(std::initializer_list<const char*> tools) {
    for (const char* t : tools)
        if (find_program(t).empty()) {
            if (const char* ci = std::getenv("CI"); ci && std::string(ci) == "true")
                ADD_FAILURE() << t << " is not on PATH in CI: scripts/install-deps.sh installs it";
            return true;
        }
    return false;
}

// 24 photos of the demo scene (320×240, surfaces with fine detail, as SfM needs) in `photos`; the true
// cameras stay in `truth` (a NeRF-synthetic dataset).
void take_photos(const test::TempDir& dir) {
    DemoDatasetOptions d;
    d.width = 320;
    d.height = 240;
    d.train_views = 24;
    d.test_views = 1;
    d.surface_detail = true;
    write_demo_dataset((dir / "truth").string(), d);
    fs::create_directories(dir / "photos");
    for (const auto& e : fs::directory_iterator(dir / "truth/train"))
        fs::copy_file(e.path(), dir / "photos" / e.path().filename());
}

struct CentreError {
    double max = 0, mean = 0;  // fraction of the scene size
    int matched = 0;
};

// The prepared cameras' centres against the true ones, after the similarity that best aligns them.
CentreError centre_error(const test::TempDir& dir, const std::string& model_dir, bool frames) {
    DatasetOptions o;
    const Dataset truth = open_dataset((dir / "truth").string(), o);
    const ColmapModel model = read_colmap_model(model_dir);
    std::vector<Vec3<double>> from, to;
    for (const ColmapImage& im : model.images) {
        // A photo keeps its name (r_007.png); the video's frames are numbered in order (frame_00007.jpg).
        const std::string stem = fs::path(im.name).stem().string();
        const int index = std::atoi(stem.substr(stem.find('_') + 1).c_str());
        const std::string want = "train/" + (frames ? fmt::format("r_{:03d}.png", index) : stem + ".png");
        for (const DatasetView& v : truth.views)
            if (!v.test && v.name == want) {
                const Mat3<double> r = rotation_from_qvec(im.qvec);
                from.push_back(-(transpose(r) * im.tvec));
                to.push_back(v.camera.centre());
            }
    }
    CentreError e;
    e.matched = int(from.size());
    const test::Similarity a = test::align_points(from, to);
    double size = 0;
    for (const Vec3<double>& t : to)
        size = std::max(size, std::sqrt(dot(t - truth.centre, t - truth.centre)));
    for (std::size_t i = 0; i < from.size(); ++i) {
        const Vec3<double> r = a(from[i]) - to[i];
        const double d = std::sqrt(dot(r, r)) / (2 * size);
        e.max = std::max(e.max, d);
        e.mean += d / double(from.size());
    }
    return e;
}

TEST(Prepare, PhotosRegisterAndTheirCamerasMatchTheTrueOnes) {
    if (tools_missing({"colmap"})) GTEST_SKIP() << "colmap not on PATH (scripts/install-deps.sh installs it)";
    test::TempDir dir;
    take_photos(dir);
    PrepareOptions o;
    o.input = (dir / "photos").string();
    o.output = (dir / "data").string();
    const PrepareResult r = prepare_dataset(o);
    EXPECT_EQ(r.images, 24);
    EXPECT_EQ(r.registered, 24);
    EXPECT_LT(r.mean_reprojection_error, 1.0);
    EXPECT_GT(r.points, 500u);
    ASSERT_EQ(find_colmap_model(o.output), (dir / "data/sparse/0").string());
    const CentreError e = centre_error(dir, r.model_dir, false);
    std::printf(
        "[prepare] photos: %d of %d registered, %zu points, %.3f px; camera centres %.3f %% (max %.3f %%) "
        "of the scene from the true ones\n",
        r.registered, r.images, r.points, r.mean_reprojection_error, 100 * e.mean, 100 * e.max);
    EXPECT_EQ(e.matched, 24);
    EXPECT_LT(e.max, 0.01);
    // The result is a dataset radiant reads: every photo a training view.
    DatasetOptions d;
    EXPECT_EQ(open_dataset(o.output, d).views.size(), 24u);
    // Prepared once, not again over it.
    EXPECT_THROW(prepare_dataset(o), IoError);
    EXPECT_TRUE(needs_prepare(o.input));
    EXPECT_FALSE(needs_prepare(o.output));
}

TEST(Prepare, AVideoGoesThroughFramesToPoses) {
    if (tools_missing({"colmap", "ffmpeg", "ffprobe"}))
        GTEST_SKIP() << "colmap or ffmpeg not on PATH (scripts/install-deps.sh installs them)";
    test::TempDir dir;
    take_photos(dir);
    // Three seconds of video: the 24 photos at 8 frames a second.
    const ToolRun made = run_tool(
        {"ffmpeg", "-nostdin", "-v", "error", "-framerate", "8", "-i", (dir / "photos/r_%03d.png").string(),
         "-c:v", "libx264", "-pix_fmt", "yuv420p", (dir / "walk.mp4").string()},
        (dir / "ffmpeg.log").string());
    ASSERT_EQ(made.exit_code, 0) << made.tail;
    EXPECT_TRUE(needs_prepare((dir / "walk.mp4").string()));
    PrepareOptions o;
    o.input = (dir / "walk.mp4").string();
    o.output = (dir / "data").string();
    o.video.frames = 24;
    const PrepareResult r = prepare_dataset(o);
    std::printf("[prepare] video: %d frames, %d registered, %.3f px\n", r.images, r.registered,
                r.mean_reprojection_error);
    EXPECT_EQ(r.images, 24);
    EXPECT_GE(r.registered, 22);
    EXPECT_LT(r.mean_reprojection_error, 1.0);
    const CentreError e = centre_error(dir, r.model_dir, true);
    std::printf("[prepare] video: camera centres %.3f %% (max %.3f %%) of the scene from the true ones\n",
                100 * e.mean, 100 * e.max);
    EXPECT_EQ(e.matched, r.registered);
    EXPECT_LT(e.max, 0.02);  // frames through a video codec: a little less exact than the photos
}

TEST(Prepare, TooFewRegisteredIsExplainedAndLeavesNoModel) {
    if (tools_missing({"colmap"})) GTEST_SKIP() << "colmap not on PATH (scripts/install-deps.sh installs it)";
    test::TempDir dir;
    // Six photos of nothing in common: independent noise.
    fs::create_directories(dir / "photos");
    std::mt19937 rng(5);
    for (int i = 0; i < 6; ++i) {
        Image<std::uint8_t> im(160, 120, 3);
        for (auto& v : im.data) v = std::uint8_t(rng() & 255);
        write_png((dir / fmt::format("photos/noise_{}.png", i)).string(), im);
    }
    PrepareOptions o;
    o.input = (dir / "photos").string();
    o.output = (dir / "data").string();
    try {
        prepare_dataset(o);
        FAIL() << "six unrelated photos were posed";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("registered"), std::string::npos) << m;
        EXPECT_NE(m.find("of the 6 photos"), std::string::npos) << m;
        EXPECT_NE(m.find("more photos"), std::string::npos) << m;
    }
    EXPECT_TRUE(find_colmap_model(o.output).empty());
    EXPECT_FALSE(fs::exists(dir / "data/sparse/0"));
    EXPECT_TRUE(fs::exists(dir / "data/colmap.log"));
}

TEST(Prepare, MissingColmapNamesThePackage) {
    test::TempDir dir;
    fs::create_directories(dir / "photos");
    write_png((dir / "photos/a.png").string(), Image<std::uint8_t>(8, 8, 3));
    const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
    setenv("PATH", (dir / "nothing").c_str(), 1);
    PrepareOptions o;
    o.input = (dir / "photos").string();
    o.output = (dir / "data").string();
    std::string message;
    try {
        prepare_dataset(o);
    } catch (const Error& e) {
        message = e.what();
    }
    setenv("PATH", path.c_str(), 1);
    EXPECT_NE(message.find("apt install colmap"), std::string::npos) << message;
    EXPECT_FALSE(fs::exists(dir / "data"));
}

}  // namespace
}  // namespace radiant
