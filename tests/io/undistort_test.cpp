// Issue 18: what undistortion keeps. `crop` is OpenCV's alpha-0 camera (gsplat's); masks follow the remap.
#include "radiant/io/undistort.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "radiant/core/distortion.hpp"
#include "radiant/core/error.hpp"
#include "radiant/io/masks.hpp"

namespace radiant {
namespace {

Camera opencv_camera(int w, int h, double fx, double fy, double cx, double cy, std::vector<double> k) {
    Camera c;
    c.width = w;
    c.height = h;
    c.fx = fx;
    c.fy = fy;
    c.cx = cx;
    c.cy = cy;
    c.model = CameraModel::opencv;
    c.distortion = std::move(k);
    return c;
}

// cv2.getOptimalNewCameraMatrix(K, D, (w, h), 0) from Debian's python3-opencv 4.6.0 on the same numbers
// (the first camera is fox's, at full size).
struct Fixture {
    Camera camera;
    double fx, fy, cx, cy;
};

TEST(Undistort, CropMatchesOpenCvsOptimalNewCameraMatrix) {
    const Fixture fixtures[] = {
        {opencv_camera(1080, 1920, 1375.52, 1374.49, 554.558, 965.268,
                       {0.0578421, -0.0805099, -0.000980296, 0.00015575}),
         1389.4567, 1386.4723, 554.2449, 962.8924},
        {opencv_camera(640, 480, 500, 500, 320, 240, {0.1, 0, 0, 0}), 527.8024, 527.5271, 319.5000, 239.5000},
        {opencv_camera(800, 600, 600, 610, 395, 305, {-0.25, 0.06, 0.001, -0.0015}), 524.2375, 569.5688,
         390.8913, 305.8043},
        {opencv_camera(1000, 750, 700, 700, 505, 370, {0.05, -0.02, 0, 0, 0.01}), 720.8061, 720.6245,
         504.3320, 369.5983},
    };
    for (const Fixture& f : fixtures) {
        const Camera c = crop_camera(f.camera, "test");
        std::printf("[crop] %dx%d: fx %.4f (OpenCV %.4f) fy %.4f (%.4f) cx %.4f (%.4f) cy %.4f (%.4f)\n",
                    c.width, c.height, c.fx, f.fx, c.fy, f.fy, c.cx, f.cx, c.cy, f.cy);
        EXPECT_EQ(c.model, CameraModel::pinhole);
        EXPECT_TRUE(c.distortion.empty());
        EXPECT_EQ(c.width, f.camera.width);
        EXPECT_NEAR(c.fx, f.fx, 0.5);
        EXPECT_NEAR(c.fy, f.fy, 0.5);
        EXPECT_NEAR(c.cx, f.cx, 0.5);
        EXPECT_NEAR(c.cy, f.cy, 0.5);
    }
}

// The crop keeps (nearly) every output pixel valid; the same-intrinsics pinhole of `mask` leaves a border
// without a source, which the map marks.
TEST(Undistort, MaskModeMarksTheBorderCropModeAvoidsIt) {
    const Camera cam = opencv_camera(160, 120, 120, 120, 80, 60, {0.1, 0.02, 0, 0});
    const UndistortMap same = make_undistort_map(cam);
    const UndistortMap cropped = make_undistort_map(cam, crop_camera(cam, "test"));
    std::printf("[crop] invalid pixels: mask %zu, crop %zu of %d\n", same.invalid_pixels,
                cropped.invalid_pixels, cam.width * cam.height);
    EXPECT_GT(same.invalid_pixels, 600u);  // k1 > 0: the undistorted frame reaches past the photo's edges
    EXPECT_LT(cropped.invalid_pixels, 30u);
    // Every invalid pixel of `mask` really has its source outside the photo, and every valid one inside.
    const Distortion<double> d = distortion_of<double>(cam);
    for (int y = 0; y < cam.height; ++y)
        for (int x = 0; x < cam.width; ++x) {
            const Vec2<double> pd =
                distort(d, Vec2<double>{(x + 0.5 - cam.cx) / cam.fx, (y + 0.5 - cam.cy) / cam.fy});
            const double sx = cam.fx * pd.x + cam.cx, sy = cam.fy * pd.y + cam.cy;
            const bool inside = sx >= 0 && sy >= 0 && sx <= cam.width && sy <= cam.height;
            ASSERT_EQ(bool(same.valid[std::size_t(y * cam.width + x)]), inside) << x << "," << y;
        }
}

TEST(Undistort, MasksFollowTheRemap) {
    const Camera cam = opencv_camera(96, 72, 80, 80, 48, 36, {0.12, 0, 0, 0});
    const UndistortMap map = make_undistort_map(cam);
    // No source mask: the output mask is the map's validity.
    const Image<std::uint8_t> border = undistort_mask(map, {});
    std::size_t invalid = 0;
    for (std::size_t i = 0; i < border.data.size(); ++i) {
        EXPECT_EQ(border.data[i] == kMaskValid, bool(map.valid[i]));
        invalid += border.data[i] != kMaskValid;
    }
    EXPECT_EQ(invalid, map.invalid_pixels);
    // A masked block in the photo: output pixels sampling it are excluded, those far from it are not.
    Image<std::uint8_t> source(96, 72, 1, kMaskValid);
    for (int y = 30; y < 40; ++y)
        for (int x = 60; x < 75; ++x) source.at(x, y) = kMaskInvalid;
    const Image<std::uint8_t> out = undistort_mask(map, source);
    int excluded_by_block = 0;
    for (int y = 0; y < 72; ++y)
        for (int x = 0; x < 96; ++x) {
            const std::size_t i = std::size_t(y * 96 + x);
            if (!map.valid[i]) {
                EXPECT_EQ(out.data[i], kMaskInvalid);
                continue;
            }
            const double sx = map.source_xy[2 * i] - 0.5, sy = map.source_xy[2 * i + 1] - 0.5;
            const bool near_block = sx > 57.5 && sx < 76.5 && sy > 27.5 && sy < 41.5;  // 4×4 taps
            const bool in_block = sx >= 60 && sx <= 74 && sy >= 30 && sy <= 39;
            if (in_block) {
                EXPECT_EQ(out.data[i], kMaskInvalid) << x << "," << y;
            }
            if (!near_block) {
                EXPECT_EQ(out.data[i], kMaskValid) << x << "," << y;
            }
            excluded_by_block += in_block;
        }
    EXPECT_GT(excluded_by_block, 100);
    // A mask of the wrong size is refused.
    EXPECT_THROW(undistort_mask(map, Image<std::uint8_t>(95, 72, 1, kMaskValid)), Error);
}

TEST(Undistort, CropRefusesAFisheyeThatSeesPastTheHorizon) {
    Camera wide;
    wide.width = 200;
    wide.height = 200;
    wide.fx = wide.fy = 50;  // θd at the corner ≈ 2.8 rad: more than a 180° view
    wide.cx = wide.cy = 100;
    wide.model = CameraModel::fisheye;
    wide.distortion = {0, 0, 0, 0};
    try {
        crop_camera(wide, "wide.jpg");
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("--shading ray"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("wide.jpg"), std::string::npos) << e.what();
    }
    Camera mild = wide;
    mild.fx = mild.fy = 150;
    mild.distortion = {0.02, 0, 0, 0};
    const Camera c = crop_camera(mild, "mild");
    EXPECT_GT(c.fx, 0);
    EXPECT_LT(make_undistort_map(mild, c).invalid_pixels, 400u);  // under 1 %: slivers between the samples
}

TEST(Masks, FilesAlphaAndResizing) {
    // 0/255, gray levels split at 128, 0/1 masks, RGB means, alpha ignored in mask files.
    Image<std::uint8_t> gray(4, 1, 1);
    gray.data = {0, 127, 128, 255};
    EXPECT_EQ(mask_from_values(gray).data, (std::vector<std::uint8_t>{0, 0, 255, 255}));
    Image<std::uint8_t> binary(3, 1, 1);
    binary.data = {0, 1, 1};
    EXPECT_EQ(mask_from_values(binary).data, (std::vector<std::uint8_t>{0, 255, 255}));
    Image<std::uint8_t> rgba(2, 1, 4);
    rgba.data = {255, 255, 255, 0, 10, 0, 0, 255};
    EXPECT_EQ(mask_from_values(rgba).data, (std::vector<std::uint8_t>{255, 0}));
    EXPECT_EQ(mask_from_alpha(rgba).data, (std::vector<std::uint8_t>{0, 255}));
    EXPECT_TRUE(mask_from_alpha(gray).data.empty());
    // Halving: an output pixel stays valid only if all four it covers are.
    Image<std::uint8_t> m(4, 2, 1, kMaskValid);
    m.at(3, 1) = kMaskInvalid;
    EXPECT_EQ(resize_mask(m, 2, 1).data, (std::vector<std::uint8_t>{255, 0}));
    // A third: spans that only touch a pixel at their ends do not cover it.
    Image<std::uint8_t> row(6, 1, 1, kMaskValid);
    row.at(2, 0) = kMaskInvalid;
    EXPECT_EQ(resize_mask(row, 3, 1).data, (std::vector<std::uint8_t>{255, 0, 255}));
}

}  // namespace
}  // namespace radiant
