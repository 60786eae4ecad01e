#include "radiant/io/colmap.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "radiant/core/error.hpp"
#include "support/colmap_writer.hpp"
#include "support/temp_dir.hpp"

namespace radiant {
namespace {

using test::FixtureCamera;

// Every supported model with distinct parameters, and what radiant's camera must say for it.
struct ModelCase {
    FixtureCamera cam;
    double fx, fy, cx, cy;
    CameraModel model;
    std::vector<double> distortion;
};

std::vector<ModelCase> model_cases() {
    return {
        {{1, 0, "SIMPLE_PINHOLE", 640, 480, {500, 320, 240}}, 500, 500, 320, 240, CameraModel::pinhole, {}},
        {{2, 1, "PINHOLE", 640, 480, {500, 510, 321, 241}}, 500, 510, 321, 241, CameraModel::pinhole, {}},
        {{3, 2, "SIMPLE_RADIAL", 640, 480, {500, 320, 240, 0.1}},
         500,
         500,
         320,
         240,
         CameraModel::opencv,
         {0.1, 0, 0, 0}},
        {{4, 3, "RADIAL", 640, 480, {500, 320, 240, 0.1, -0.02}},
         500,
         500,
         320,
         240,
         CameraModel::opencv,
         {0.1, -0.02, 0, 0}},
        {{5, 4, "OPENCV", 640, 480, {500, 510, 321, 241, 0.1, -0.02, 0.001, 0.002}},
         500,
         510,
         321,
         241,
         CameraModel::opencv,
         {0.1, -0.02, 0.001, 0.002}},
        {{6,
          6,
          "FULL_OPENCV",
          640,
          480,
          {500, 510, 321, 241, 0.1, -0.02, 0.001, 0.002, 0.003, 0.01, 0.02, 0.03}},
         500,
         510,
         321,
         241,
         CameraModel::opencv,
         {0.1, -0.02, 0.001, 0.002, 0.003, 0.01, 0.02, 0.03}},
        {{7, 5, "OPENCV_FISHEYE", 640, 480, {300, 310, 321, 241, 0.1, -0.02, 0.003, -0.001}},
         300,
         310,
         321,
         241,
         CameraModel::fisheye,
         {0.1, -0.02, 0.003, -0.001}},
        {{8, 8, "SIMPLE_RADIAL_FISHEYE", 640, 480, {300, 320, 240, 0.05}},
         300,
         300,
         320,
         240,
         CameraModel::fisheye,
         {0.05, 0, 0, 0}},
        {{9, 9, "RADIAL_FISHEYE", 640, 480, {300, 320, 240, 0.05, 0.01}},
         300,
         300,
         320,
         240,
         CameraModel::fisheye,
         {0.05, 0.01, 0, 0}},
    };
}

std::vector<test::FixtureImage> fixture_images(std::uint32_t cameras) {
    std::vector<test::FixtureImage> ims;
    for (std::uint32_t i = 0; i < cameras; ++i)
        ims.push_back(
            {100 + i, {0.9, 0.1, -0.3, 0.2}, {0.5, -1.0, 3.0 + i}, i + 1, fmt::format("img_{:02d}.png", i)});
    return ims;
}

void check_model(const ColmapModel& m) {
    const auto cases = model_cases();
    ASSERT_EQ(m.cameras.size(), cases.size());  // several cameras in one model
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const ModelCase& c = cases[i];
        const Camera cam = colmap_intrinsics(m.cameras[i], "test");
        EXPECT_EQ(m.cameras[i].model, c.cam.model);
        EXPECT_EQ(cam.width, 640);
        EXPECT_DOUBLE_EQ(cam.fx, c.fx) << c.cam.model;
        EXPECT_DOUBLE_EQ(cam.fy, c.fy) << c.cam.model;
        EXPECT_DOUBLE_EQ(cam.cx, c.cx) << c.cam.model;
        EXPECT_DOUBLE_EQ(cam.cy, c.cy) << c.cam.model;
        EXPECT_EQ(cam.model, c.model) << c.cam.model;
        EXPECT_EQ(cam.distortion, c.distortion) << c.cam.model;
        EXPECT_NO_THROW(validate(cam, c.cam.model));
    }
    ASSERT_EQ(m.images.size(), cases.size());
    EXPECT_EQ(m.images[3].name, "img_03.png");
    EXPECT_EQ(m.images[3].camera_id, 4u);
    EXPECT_DOUBLE_EQ(m.images[3].tvec.z, 6.0);
    EXPECT_DOUBLE_EQ(m.images[3].qvec.y, 0.1);
    ASSERT_EQ(m.points.size(), 2u);
    EXPECT_DOUBLE_EQ(m.points[1].xyz.y, -2.5);
    EXPECT_EQ(m.points[1].rgb[2], 7);
}

std::vector<FixtureCamera> fixture_cameras() {
    std::vector<FixtureCamera> cams;
    for (const auto& c : model_cases()) cams.push_back(c.cam);
    return cams;
}
const std::vector<test::FixturePoint> kPoints = {{{1, 2, 3}, {10, 20, 30}}, {{-1, -2.5, 4}, {200, 100, 7}}};

TEST(Colmap, BinaryModelWithEveryCameraModel) {
    test::TempDir dir;
    std::filesystem::create_directories(dir / "sparse/0");
    test::write_bytes((dir / "sparse/0/cameras.bin").string(), test::cameras_bin(fixture_cameras()));
    test::write_bytes((dir / "sparse/0/images.bin").string(), test::images_bin(fixture_images(9)));
    test::write_bytes((dir / "sparse/0/points3D.bin").string(), test::points_bin(kPoints));
    const std::string found = find_colmap_model(dir.str());
    EXPECT_EQ(found, (dir / "sparse/0").string());
    const ColmapModel m = read_colmap_model(found);
    EXPECT_TRUE(m.binary);
    check_model(m);
}

TEST(Colmap, TextModelWithEveryCameraModel) {
    for (const char* where : {"sparse", ""}) {  // DIR/sparse and DIR itself
        test::TempDir dir;
        const auto d = std::string(where).empty() ? std::filesystem::path(dir.str()) : dir / where;
        std::filesystem::create_directories(d);
        test::write_bytes((d / "cameras.txt").string(), test::cameras_txt(fixture_cameras()));
        test::write_bytes((d / "images.txt").string(), test::images_txt(fixture_images(9)));
        test::write_bytes((d / "points3D.txt").string(), test::points_txt(kPoints));
        const std::string found = find_colmap_model(dir.str());
        EXPECT_EQ(std::filesystem::path(found), d);
        const ColmapModel m = read_colmap_model(found);
        EXPECT_FALSE(m.binary);
        check_model(m);
    }
}

TEST(Colmap, PoseIsWorldToCamera) {
    // qvec (cos 45°, 0, 0, sin 45°): 90° about z, so R·(1, 0, 0) = (0, 1, 0).
    const double s = std::sqrt(0.5);
    Mat3<double> r = rotation_from_qvec({s, 0, 0, s});
    Vec3<double> v = r * Vec3<double>{1, 0, 0};
    EXPECT_NEAR(v.y, 1.0, 1e-12);
}

TEST(Colmap, EveryTruncationOfABinaryFileIsAnError) {
    const std::string cams = test::cameras_bin(fixture_cameras()), ims = test::images_bin(fixture_images(9)),
                      pts = test::points_bin(kPoints);
    for (std::size_t n = 0; n < cams.size(); ++n)
        EXPECT_THROW(parse_colmap_cameras_bin(cams.substr(0, n), "cameras.bin"), IoError) << n;
    for (std::size_t n = 0; n < ims.size(); ++n)
        EXPECT_THROW(parse_colmap_images_bin(ims.substr(0, n), "images.bin"), IoError) << n;
    for (std::size_t n = 0; n < pts.size(); ++n)
        EXPECT_THROW(parse_colmap_points_bin(pts.substr(0, n), "points3D.bin"), IoError) << n;
}

TEST(Colmap, BadInput) {
    auto expect_error = [](auto&& fn, const std::string& fragment) {
        try {
            fn();
            ADD_FAILURE() << "no error, expected '" << fragment << "'";
        } catch (const IoError& e) {
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
        }
    };
    // unknown model, by id and by name; a model radiant cannot use
    FixtureCamera bad{1, 99, "X", 10, 10, {}};
    expect_error([&] { parse_colmap_cameras_bin(test::cameras_bin({bad}), "cameras.bin"); },
                 "unknown camera model id 99");
    expect_error([] { parse_colmap_cameras_txt("1 KANNALA 10 10 1 2 3\n", "cameras.txt"); },
                 "unknown camera model 'KANNALA'");
    expect_error([] { parse_colmap_cameras_txt("1 PINHOLE 10 10 1 2 3\n", "cameras.txt"); }, "line 1");
    expect_error([] { parse_colmap_cameras_txt("1 PINHOLE 10 10 1 2 3 4 5\n", "cameras.txt"); }, "too many");
    expect_error([] { parse_colmap_cameras_txt("1 PINHOLE 0 10 1 2 3 4\n", "cameras.txt"); }, "image size");
    ColmapCamera fov{1, "FOV", 10, 10, {1, 1, 5, 5, 0.1}};
    expect_error([&] { colmap_intrinsics(fov, "cameras.bin"); }, "not supported");
    // non-finite pose
    auto ims = fixture_images(1);
    ims[0].t[1] = std::nan("");
    expect_error([&] { parse_colmap_images_bin(test::images_bin(ims), "images.bin"); }, "not finite");
    expect_error([] { parse_colmap_images_txt("1 1 0 0 0 inf 0 0 1 a.png\n\n", "images.txt"); }, "line 1");
    // huge counts do not allocate
    test::Bytes b;
    b.put<std::uint64_t>(1ull << 60);
    expect_error([&] { parse_colmap_points_bin(b.s, "points3D.bin"); }, "does not fit");
    // image referring to a missing camera; missing files
    test::TempDir dir;
    test::write_bytes((dir / "cameras.txt").string(), "1 PINHOLE 10 10 5 5 5 5\n");
    test::write_bytes((dir / "images.txt").string(), "1 1 0 0 0 0 0 0 7 a.png\n\n");
    expect_error([&] { read_colmap_model(dir.str()); }, "camera 7");
    test::TempDir empty;
    test::write_bytes((empty / "cameras.bin").string(), test::cameras_bin(fixture_cameras()));
    expect_error([&] { read_colmap_model(empty.str()); }, "images.bin");
}

}  // namespace
}  // namespace radiant
