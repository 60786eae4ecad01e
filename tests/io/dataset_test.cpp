#include "radiant/io/dataset.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "radiant/core/distortion.hpp"
#include "radiant/core/error.hpp"
#include "radiant/io/image_io.hpp"
#include "radiant/io/undistort.hpp"
#include "support/colmap_writer.hpp"
#include "support/temp_dir.hpp"

namespace radiant {
namespace {

Image<std::uint8_t> gradient_image(int w, int h) {
    Image<std::uint8_t> img(w, h, 3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            img.at(x, y, 0) = std::uint8_t(x * 255 / std::max(1, w - 1));
            img.at(x, y, 1) = std::uint8_t(y * 255 / std::max(1, h - 1));
            img.at(x, y, 2) = 77;
        }
    return img;
}

// A COLMAP dataset of n images (PINHOLE 64×48) on a circle of radius 2, as JPEG files.
void write_colmap_dataset(const test::TempDir& dir, int n, bool scaled_folder) {
    std::filesystem::create_directories(dir / "sparse/0");
    std::filesystem::create_directories(dir / "images");
    test::write_bytes((dir / "sparse/0/cameras.bin").string(),
                      test::cameras_bin({{1, 1, "PINHOLE", 64, 48, {60, 60, 32, 24}}}));
    std::vector<test::FixtureImage> ims;
    for (int i = 0; i < n; ++i) {
        const double a = 2 * M_PI * i / n;
        // qvec identity, camera centre c = −t: on a circle of radius 2 in x–z
        ims.push_back({std::uint32_t(i + 1),
                       {1, 0, 0, 0},
                       {-2 * std::cos(a), 0, -2 * std::sin(a)},
                       1,
                       fmt::format("{:03d}.jpg", i)});
        test::write_bytes((dir / fmt::format("images/{:03d}.jpg", i)).string(),
                          encode_jpeg(gradient_image(64, 48), "fixture.jpg"));
    }
    if (scaled_folder) {
        std::filesystem::create_directories(dir / "images_2");
        for (int i = 0; i < n; ++i)
            test::write_bytes((dir / fmt::format("images_2/{:03d}.jpg", i)).string(),
                              encode_jpeg(gradient_image(32, 24), "fixture.jpg"));
    }
    test::write_bytes((dir / "sparse/0/images.bin").string(), test::images_bin(ims));
    test::write_bytes((dir / "sparse/0/points3D.bin").string(), test::points_bin({{{0, 0, 0}, {1, 2, 3}}}));
}

TEST(Dataset, ColmapSplitsExtentAndImages) {
    test::TempDir dir;
    write_colmap_dataset(dir, 17, false);
    DatasetOptions o;
    o.eval = true;
    const Dataset ds = open_dataset(dir.str(), o);
    EXPECT_EQ(ds.format, "colmap (binary)");
    ASSERT_EQ(ds.views.size(), 17u);
    EXPECT_EQ(ds.test_count(), 3u);  // indices 0, 8, 16
    EXPECT_TRUE(ds.views[0].test);
    EXPECT_TRUE(ds.views[8].test);
    EXPECT_FALSE(ds.views[1].test);
    EXPECT_NEAR(ds.extent, 1.1 * 2.0, 1e-9);  // centres on a circle of radius 2 around their mean
    // Every camera looks along +z (parallel axes): the focus falls back to `extent` ahead of the centre.
    EXPECT_NEAR(ds.focus.x, 0.0, 1e-9);
    EXPECT_NEAR(ds.focus.z, 2.2, 1e-9);
    EXPECT_EQ(ds.points.size(), 1u);
    const auto images = load_images(ds);
    ASSERT_EQ(images.size(), 17u);
    EXPECT_EQ(images[0].rgb.width, 64);
    EXPECT_EQ(images[0].rgb.channels, 3);
    EXPECT_NEAR(images[0].rgb.at(63, 0, 0), 255, 3);  // JPEG decoded right way round
    EXPECT_NEAR(images[0].rgb.at(0, 47, 1), 255, 3);
    EXPECT_EQ(open_dataset(dir.str()).test_count(), 0u);  // no --eval: everything trains
}

// Issue 9: an image set larger than the memory it may take is refused before anything is decoded, with
// the downscale that would fit.
TEST(Dataset, ImagesThatDoNotFitInMemoryAreAnErrorSuggestingADownscale) {
    test::TempDir dir;
    write_colmap_dataset(dir, 17, false);
    const Dataset ds = open_dataset(dir.str());
    // 17 views of 64x48 keep 156,672 bytes as 8-bit RGB.
    try {
        load_images(ds, 100000);
        ADD_FAILURE() << "no error";
    } catch (const OutOfMemory& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find(dir.str()), std::string::npos) << m;
        EXPECT_NE(m.find("the 17 images need"), std::string::npos) << m;
        EXPECT_NE(m.find("train with --downscale"), std::string::npos) << m;
    }
    EXPECT_EQ(load_images(ds, std::size_t(1) << 30).size(), 17u);
}

TEST(Dataset, FocusIsWhereConvergingCamerasLook) {
    std::vector<Camera> views = orbit({10, -1, 2}, 3.0, 25.0, 12, {0, 0, 1}, 50.0, 64, 48);
    const Vec3<double> f = focus_point(views, {10, -1, 3}, 3.3);
    EXPECT_NEAR(f.x, 10.0, 1e-6);
    EXPECT_NEAR(f.y, -1.0, 1e-6);
    EXPECT_NEAR(f.z, 2.0, 1e-6);
    // Turned round (half a turn about their y axes), the same cameras look outwards: the axes still meet
    // at (10, −1, 2), behind every camera, so the focus falls back to 3.3 ahead of the centre along the
    // mean axis, which points up.
    for (Camera& v : views) {
        const Vec3<double> c = v.centre();
        for (int k = 0; k < 3; ++k) {
            v.R[0][k] = -v.R[0][k];
            v.R[2][k] = -v.R[2][k];
        }
        v.t = -1.0 * (v.R * c);
    }
    const Vec3<double> out = focus_point(views, {10, -1, 3}, 3.3);
    EXPECT_NEAR(out.x, 10.0, 1e-6);
    EXPECT_NEAR(out.y, -1.0, 1e-6);
    EXPECT_NEAR(out.z, 6.3, 1e-6);
}

TEST(Dataset, DownscaleUsesImagesNOrResizes) {
    for (bool folder : {true, false}) {
        test::TempDir dir;
        write_colmap_dataset(dir, 3, folder);
        DatasetOptions o;
        o.downscale = 2;
        const Dataset ds = open_dataset(dir.str(), o);
        EXPECT_EQ(ds.views[0].camera.width, 32);
        EXPECT_EQ(ds.views[0].camera.height, 24);
        EXPECT_DOUBLE_EQ(ds.views[0].camera.fx, 30);
        EXPECT_DOUBLE_EQ(ds.views[0].camera.cx, 16);
        const auto images = load_images(ds);
        EXPECT_EQ(images[0].rgb.width, 32);
        EXPECT_EQ(images[0].rgb.height, 24);
    }
}

TEST(Dataset, BadInput) {
    auto expect_error = [](const std::string& dir, const std::string& fragment) {
        try {
            const Dataset ds = open_dataset(dir);
            load_images(ds);
            ADD_FAILURE() << "no error, expected '" << fragment << "'";
        } catch (const IoError& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find(fragment), std::string::npos) << m;
            // The path once (issue 19 item 11): not "DIR: DIR/images/001.jpg: …".
            std::size_t times = 0;
            for (std::size_t p = m.find(dir); p != std::string::npos; p = m.find(dir, p + 1)) ++times;
            EXPECT_EQ(times, 1u) << "the dataset path repeated: " << m;
        }
    };
    {
        test::TempDir dir;  // image of the wrong size
        write_colmap_dataset(dir, 2, false);
        test::write_bytes((dir / "images/001.jpg").string(),
                          encode_jpeg(gradient_image(50, 48), "fixture.jpg"));
        expect_error(dir.str(), "is 50x48, but its camera 1 is 64x48");
    }
    {
        test::TempDir dir;  // not an image at all
        write_colmap_dataset(dir, 2, false);
        test::write_bytes((dir / "images/001.jpg").string(), "hello");
        expect_error(dir.str(), "not a PNG or JPEG");
    }
    {
        test::TempDir dir;  // truncated JPEG
        write_colmap_dataset(dir, 2, false);
        const std::string jpg = encode_jpeg(gradient_image(64, 48), "fixture.jpg");
        test::write_bytes((dir / "images/001.jpg").string(), jpg.substr(0, jpg.size() / 3));
        expect_error(dir.str(), "corrupt JPEG");  // not padded with grey and trained on
    }
    {
        test::TempDir dir;  // one image missing: a warning, not an error
        write_colmap_dataset(dir, 3, false);
        std::filesystem::remove(dir / "images/002.jpg");
        const Dataset ds = open_dataset(dir.str());
        EXPECT_EQ(ds.views.size(), 2u);
        EXPECT_EQ(ds.warnings.size(), 1u);
    }
    {
        test::TempDir dir;
        expect_error(dir.str(), "no dataset found");
    }
    expect_error("/nonexistent/dataset", "does not exist");
}

TEST(Images, ResizeAreaAveragesExactly) {
    Image<std::uint8_t> img(4, 2, 1);
    img.data = {0, 100, 200, 250, 50, 50, 50, 50};
    const Image<std::uint8_t> half = resize_area(img, 2, 1);
    EXPECT_EQ(half.data[0], 50);   // (0 + 100 + 50 + 50) / 4
    EXPECT_EQ(half.data[1], 138);  // (200 + 250 + 50 + 50) / 4 = 137.5
    const Image<std::uint8_t> third = resize_area(Image<std::uint8_t>(3, 3, 1, 90), 2, 2);  // partial pixels
    for (auto v : third.data) EXPECT_EQ(v, 90);
}

TEST(Images, HeaderSizeMatchesDecode) {
    test::TempDir dir;
    test::write_bytes((dir / "a.jpg").string(), encode_jpeg(gradient_image(37, 21), "fixture.jpg"));
    write_png((dir / "a.png").string(), gradient_image(19, 23));
    EXPECT_EQ(read_image_size((dir / "a.jpg").string()).width, 37);
    EXPECT_EQ(read_image_size((dir / "a.jpg").string()).height, 21);
    EXPECT_EQ(read_image_size((dir / "a.png").string()).width, 19);
    EXPECT_EQ(read_image((dir / "a.jpg").string()).height, 21);
}

// Undistortion: a pattern of straight lines seen through the lens comes back straight.
void check_straight_lines(const Camera& distorted) {
    const int w = distorted.width, h = distorted.height;
    const double period = 16;
    const Distortion<double> d = distortion_of<double>(distorted);
    for (int axis = 0; axis < 2; ++axis) {
        // The distorted photo of stripes sin(2π u / period) in the ideal image (u: ideal pixel x or y).
        Image<std::uint8_t> photo(w, h, 1);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                Vec2<double> pd{(x + 0.5 - distorted.cx) / distorted.fx,
                                (y + 0.5 - distorted.cy) / distorted.fy},
                    p;
                ASSERT_TRUE(undistort(d, pd, p));
                const double u =
                    axis == 0 ? distorted.fx * p.x + distorted.cx : distorted.fy * p.y + distorted.cy;
                photo.at(x, y) = std::uint8_t(std::lround(127.5 + 120 * std::sin(2 * M_PI * u / period)));
            }
        const UndistortMap map = make_undistort_map(distorted);
        const Image<std::uint8_t> ideal = undistort_image(map, photo);
        // Along each line across the stripes, the crossings of 127.5 sit at multiples of period/2.
        double worst = 0;
        int crossings = 0;
        const int lines = axis == 0 ? h : w, along = axis == 0 ? w : h;
        for (int l = 8; l < lines - 8; l += 4)
            for (int i = 8; i + 1 < along - 8; ++i) {
                auto at = [&](int k) {
                    const int x = axis == 0 ? k : l, y = axis == 0 ? l : k;
                    return map.valid[std::size_t(y * w + x)] ? double(ideal.at(x, y)) - 127.5 : NAN;
                };
                const double a = at(i), b = at(i + 1);
                if (!(a * b < 0)) continue;
                const double u = i + 0.5 + a / (a - b);  // linear zero crossing, in pixel coordinates
                const double k = std::round(u / (period / 2));
                worst = std::max(worst, std::abs(u - k * period / 2));
                ++crossings;
            }
        std::printf("[undistort] %s axis %d: %d crossings, worst %.4f px\n", to_string(distorted.model), axis,
                    crossings, worst);
        EXPECT_GT(crossings, 100);
        EXPECT_LT(worst, 0.05) << "axis " << axis << " model " << to_string(distorted.model);
    }
}

TEST(Undistort, OpenCvGridComesBackStraight) {
    Camera c;
    c.width = 160;
    c.height = 120;
    c.fx = 150;
    c.fy = 148;
    c.cx = 81;
    c.cy = 59.5;
    c.model = CameraModel::opencv;
    c.distortion = {-0.25, 0.08, 0.002, -0.001, -0.01};
    check_straight_lines(c);
}

TEST(Undistort, FisheyeGridComesBackStraight) {
    Camera c;
    c.width = 160;
    c.height = 120;
    c.fx = c.fy = 120;
    c.cx = 80;
    c.cy = 60;
    c.model = CameraModel::fisheye;
    c.distortion = {0.05, -0.02, 0.004, -0.001};
    check_straight_lines(c);
}

TEST(Undistort, NewtonInvertsDistortion) {
    Distortion<double> d;
    d.model = CameraModel::opencv;
    const double k[8] = {0.1, -0.05, 0.001, 0.002, 0.01, 0.02, -0.01, 0.005};
    for (int i = 0; i < 8; ++i) d.k[i] = k[i];
    for (double x = -0.6; x <= 0.6; x += 0.1)
        for (double y = -0.4; y <= 0.4; y += 0.1) {
            Vec2<double> p;
            ASSERT_TRUE(undistort(d, distort(d, Vec2<double>{x, y}), p));
            EXPECT_NEAR(p.x, x, 1e-10);
            EXPECT_NEAR(p.y, y, 1e-10);
        }
}

// The real datasets, when present.
TEST(RealDatasets, Bonsai) {
    const std::string dir = std::string(RADIANT_SHARED_DATASETS) + "/bonsai";
    if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " not present";
    DatasetOptions o;
    o.eval = true;
    const Dataset ds = open_dataset(dir, o);
    EXPECT_EQ(ds.format, "colmap (binary)");
    EXPECT_EQ(ds.views.size(), 292u);
    EXPECT_EQ(ds.test_count(), 37u);
    EXPECT_EQ(ds.points.size(), 112952u);
    EXPECT_EQ(ds.views[0].camera.width, 799);
    EXPECT_NEAR(ds.views[0].camera.fx, 823.0, 0.1);
    EXPECT_EQ(ds.views[0].camera.model, CameraModel::pinhole);
}

TEST(RealDatasets, Fox) {
    const std::string dir = std::string(RADIANT_SHARED_DATASETS) + "/fox";
    if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " not present";
    DatasetOptions o;
    o.eval = true;
    o.downscale = 4;
    const Dataset ds = open_dataset(dir, o);
    EXPECT_EQ(ds.format, "instant-ngp");
    EXPECT_EQ(ds.views.size(), 50u);
    EXPECT_EQ(ds.warnings.size(), 17u);
    EXPECT_EQ(ds.views[0].source_camera.model, CameraModel::opencv);
    EXPECT_EQ(ds.views[0].camera.width, 270);
    EXPECT_EQ(ds.views[0].camera.height, 480);
    // colmap2nerf centres the poses on the cameras' focus, where the fox head is.
    EXPECT_LT(length(ds.focus), 0.3);
    const auto images = load_images(ds);
    EXPECT_EQ(images[3].rgb.width, 270);
}

}  // namespace
}  // namespace radiant
