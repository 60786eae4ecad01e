#include "radiant/io/transforms_json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "radiant/core/error.hpp"
#include "radiant/io/dataset.hpp"
#include "radiant/io/image_io.hpp"
#include "support/colmap_writer.hpp"
#include "support/temp_dir.hpp"

namespace radiant {
namespace {

// A GL camera-to-world at (0, 0, 4) looking down −z (the GL view direction) sees the origin ahead.
const char* kFrame = R"({"file_path": "%s", "transform_matrix": [[1,0,0,0],[0,1,0,0],[0,0,1,4],[0,0,0,1]]})";

std::string frame(const std::string& path) {
    char buf[256];
    std::snprintf(buf, sizeof buf, kFrame, path.c_str());
    return buf;
}

void write_rgba_png(const std::string& path, int w, int h, std::uint8_t alpha) {
    Image<std::uint8_t> img(w, h, 4);
    for (std::size_t p = 0; p < img.pixels(); ++p) {
        img.data[4 * p] = 200;
        img.data[4 * p + 1] = 100;
        img.data[4 * p + 2] = 0;
        img.data[4 * p + 3] = alpha;
    }
    write_png(path, img);
}

TEST(Transforms, OpenGlPoseBecomesOpenCvWorldToCamera) {
    const double c2w[3][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 4}};
    Camera cam;
    cam.width = cam.height = 100;
    cam.fx = cam.fy = 100;
    cam.cx = cam.cy = 50;
    opengl_c2w_to_camera(c2w, cam);
    validate(cam, "converted");
    const auto p = pinhole_params<double>(cam);
    const Vec3<double> origin = world_to_camera(p, Vec3<double>{0, 0, 0});
    EXPECT_NEAR(origin.z, 4.0, 1e-12);                                  // in front
    const Vec3<double> up = world_to_camera(p, Vec3<double>{0, 1, 0});  // GL world +y is up
    EXPECT_LT(up.y, 0);                                                 // OpenCV image y points down
    EXPECT_NEAR(cam.centre().z, 4.0, 1e-12);
}

TEST(Transforms, NerfSyntheticLayout) {
    test::TempDir dir;
    std::filesystem::create_directories(dir / "train");
    std::filesystem::create_directories(dir / "test");
    for (int i = 0; i < 3; ++i)
        write_rgba_png((dir / fmt::format("train/r_{}.png", i)).string(), 20, 16, 128);
    write_rgba_png((dir / "test/r_0.png").string(), 20, 16, 0);
    const double angle = 0.6911112070083618;
    test::write_bytes((dir / "transforms_train.json").string(),
                      fmt::format(R"({{"camera_angle_x": {}, "frames": [{}, {}, {}]}})", angle,
                                  frame("./train/r_0"), frame("./train/r_1"), frame("./train/r_2")));
    test::write_bytes((dir / "transforms_test.json").string(),
                      fmt::format(R"({{"camera_angle_x": {}, "frames": [{}]}})", angle, frame("./test/r_0")));
    DatasetOptions o;
    o.eval = true;
    o.background = {1, 1, 1};
    const Dataset ds = open_dataset(dir.str(), o);
    EXPECT_EQ(ds.format, "nerf-synthetic");
    EXPECT_EQ(ds.train_count(), 3u);
    EXPECT_EQ(ds.test_count(), 1u);
    EXPECT_NEAR(ds.views[0].camera.fx, 0.5 * 20 / std::tan(0.5 * angle), 1e-9);
    EXPECT_DOUBLE_EQ(ds.views[0].camera.cx, 10.0);
    const auto images = load_images(ds);
    // 50 % alpha over white: 0.5·200 + 0.5·255 ≈ 228; alpha 0 → the background
    ASSERT_TRUE(ds.views[0].test);  // "test/r_0.png" sorts first
    EXPECT_EQ(images[0].rgb.data[0], 255);
    EXPECT_EQ(images[0].rgb.data[2], 255);
    EXPECT_NEAR(images[1].rgb.data[0], 228, 1);
    // Without --eval the test frames train too.
    EXPECT_EQ(open_dataset(dir.str()).train_count(), 4u);
}

TEST(Transforms, InstantNgpLayoutWithDistortionOverridesAndMissingImages) {
    test::TempDir dir;
    std::filesystem::create_directories(dir / "images");
    for (int i = 0; i < 3; ++i) write_rgba_png((dir / fmt::format("images/{}.png", i)).string(), 30, 20, 255);
    test::write_bytes(
        (dir / "transforms.json").string(),
        fmt::format(
            R"({{"fl_x": 40, "fl_y": 41, "cx": 15.5, "cy": 9.5, "w": 30, "h": 20, "k1": 0.05, "k2": -0.01,
                        "p1": 0.001, "p2": -0.002, "aabb_scale": 4,
                        "frames": [{}, {}, {}, {}]}})",
            frame("images/0.png"), frame("images/1.png"), frame("images/missing.png"),
            R"({"file_path": "images/2.png", "fl_x": 44,
                        "transform_matrix": [[1,0,0,1],[0,1,0,0],[0,0,1,4],[0,0,0,1]]})"));
    const Dataset ds = open_dataset(dir.str());
    EXPECT_EQ(ds.format, "instant-ngp");
    ASSERT_EQ(ds.views.size(), 3u);
    ASSERT_EQ(ds.warnings.size(), 1u);
    EXPECT_NE(ds.warnings[0].find("missing.png"), std::string::npos);
    EXPECT_EQ(ds.views[0].source_camera.model, CameraModel::opencv);
    EXPECT_EQ(ds.views[0].source_camera.distortion, (std::vector<double>{0.05, -0.01, 0.001, -0.002}));
    EXPECT_EQ(ds.views[0].camera.model, CameraModel::pinhole);  // undistorted for ewa
    EXPECT_DOUBLE_EQ(ds.views[0].source_camera.fy, 41);
    EXPECT_DOUBLE_EQ(ds.views[2].source_camera.fx, 44);  // per-frame override
    EXPECT_DOUBLE_EQ(ds.views[1].source_camera.fx, 40);
    EXPECT_EQ(load_images(ds).size(), 3u);
}

TEST(Transforms, BadInput) {
    auto expect_error = [](const std::string& json, const std::string& fragment) {
        test::TempDir dir;
        test::write_bytes((dir / "transforms.json").string(), json);
        try {
            open_dataset(dir.str());
            ADD_FAILURE() << json;
        } catch (const IoError& e) {
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("transforms.json"), std::string::npos) << e.what();
        }
    };
    expect_error("{", "invalid JSON");
    expect_error(R"({"frames": [], "fl_x": 1e999})", "invalid JSON");
    expect_error(R"({"frames": 3})", "'frames'");
    expect_error(R"({"frames": [{"transform_matrix": []}]})", "file_path");
    expect_error(R"({"frames": [{"file_path": "a.png", "transform_matrix": [[1,0,0]]}]})",
                 "transform_matrix");
    expect_error(R"({"fl_x": "big", "frames": []})", "'fl_x'");
    expect_error(
        R"({"frames": [{"file_path": "a.png", "transform_matrix": [[1,0,0,0],[0,1,0,0],[0,0,1,0]]}]})",
        "no frame has an image");
}

}  // namespace
}  // namespace radiant
