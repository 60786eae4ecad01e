// Issue 18: the captures users bring — user masks (a masks/ folder, --masks, nerfstudio's mask_path, RGBA
// alpha), Inria's convert.py layouts, --images, per-image cameras, photos too large to train at full size.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "radiant/core/error.hpp"
#include "radiant/io/dataset.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/image_io.hpp"
#include "radiant/io/ply.hpp"
#include "support/colmap_writer.hpp"
#include "support/temp_dir.hpp"

namespace radiant {
namespace {
namespace fs = std::filesystem;

constexpr int kW = 64, kH = 48;

Image<std::uint8_t> photo(int w = kW, int h = kH, int channels = 3) {
    Image<std::uint8_t> img(w, h, channels);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < channels; ++c) img.at(x, y, c) = std::uint8_t((x * 3 + y * 5 + c * 40) % 256);
    return img;
}

// A mask excluding the columns [x0, x1).
Image<std::uint8_t> column_mask(int x0, int x1, int w = kW, int h = kH) {
    Image<std::uint8_t> m(w, h, 1, 255);
    for (int y = 0; y < h; ++y)
        for (int x = x0; x < x1; ++x) m.at(x, y) = 0;
    return m;
}

// A COLMAP model in `model_dir` with n images named 000.jpg… and one camera per entry of `cams` (images
// take them in turn); images written to `image_dir` (PNG when channels is 4, under a .png name).
void write_colmap(const fs::path& model_dir, const fs::path& image_dir, int n,
                  const std::vector<test::FixtureCamera>& cams, int channels = 3) {
    fs::create_directories(model_dir);
    fs::create_directories(image_dir);
    test::write_bytes((model_dir / "cameras.bin").string(), test::cameras_bin(cams));
    std::vector<test::FixtureImage> ims;
    for (int i = 0; i < n; ++i) {
        const double a = 0.2 * i;
        const std::string name = fmt::format("{:03d}.{}", i, channels == 4 ? "png" : "jpg");
        const test::FixtureCamera& c = cams[std::size_t(i) % cams.size()];
        ims.push_back(
            {std::uint32_t(i + 1), {1, 0, 0, 0}, {-2 * std::cos(a), 0, 3 - 2 * std::sin(a)}, c.id, name});
        if (channels == 4)
            write_png((image_dir / name).string(), photo(c.width, c.height, 4));
        else
            test::write_bytes((image_dir / name).string(),
                              encode_jpeg(photo(c.width, c.height), "fixture.jpg"));
    }
    test::write_bytes((model_dir / "images.bin").string(), test::images_bin(ims));
    test::write_bytes((model_dir / "points3D.bin").string(), test::points_bin({{{0, 0, 3}, {9, 9, 9}}}));
}

const test::FixtureCamera kPinhole{1, 1, "PINHOLE", kW, kH, {60, 60, 32, 24}};
const test::FixtureCamera kOpencv{1, 4, "OPENCV", kW, kH, {60, 60, 32, 24, 0.12, 0, 0, 0}};

std::size_t excluded(const TargetImage& t) {
    return t.rgb.pixels() - t.valid_pixels();
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(UserMasks, AMasksFolderBesideImagesMasksEachImageByName) {
    test::TempDir dir;
    write_colmap(dir / "sparse/0", dir / "images", 4, {kPinhole});
    fs::create_directories(dir / "masks");
    // The names tools write: the image's own name, name + .png (COLMAP), the stem with another extension.
    write_png((dir / "masks/000.jpg").string(), column_mask(0, 8));  // a PNG under the image's name
    write_png((dir / "masks/001.jpg.png").string(), column_mask(0, 16));
    write_png((dir / "masks/002.png").string(), column_mask(0, 0));  // keeps everything
    test::write_bytes((dir / "masks/003.jpeg").string(),
                      encode_jpeg(photo(), "fixture.jpg"));  // JPEG, gray levels
    const Dataset ds = open_dataset(dir.str());
    EXPECT_EQ(ds.mask_dir, (dir / "masks").string());
    const std::vector<TargetImage> images = load_images(ds);
    EXPECT_EQ(excluded(images[0]), 8u * kH);
    EXPECT_EQ(excluded(images[1]), 16u * kH);
    EXPECT_TRUE(images[2].mask.data.empty());  // nothing excluded: no mask kept
    EXPECT_GT(excluded(images[3]), 0u);
    EXPECT_NE(describe(ds).find("masks       4 images from"), std::string::npos) << describe(ds);
    // Masks follow --downscale: an output pixel stays only where all it covers was kept (columns 0-7 of 64
    // → 0-3 of 32, column 8 of 64 and on are kept → 4 and on).
    DatasetOptions half;
    half.downscale = 2;
    const std::vector<TargetImage> small = load_images(open_dataset(dir.str(), half));
    EXPECT_EQ(small[0].rgb.width, 32);
    EXPECT_EQ(excluded(small[0]), 4u * 24);
}

TEST(UserMasks, MissingWrongSizeOrAllExcludingMasksAreErrorsNamingThem) {
    test::TempDir dir;
    write_colmap(dir / "sparse/0", dir / "images", 2, {kPinhole});
    fs::create_directories(dir / "masks");
    write_png((dir / "masks/000.png").string(), column_mask(0, 8));
    const std::string missing = error_of([&] { open_dataset(dir.str()); });
    EXPECT_NE(missing.find("no mask for image"), std::string::npos) << missing;
    EXPECT_NE(missing.find("001.jpg"), std::string::npos) << missing;

    write_png((dir / "masks/001.png").string(), column_mask(0, 8, kW / 2, kH / 2));
    const Dataset ds = open_dataset(dir.str());
    const std::string size = error_of([&] { load_images(ds); });
    EXPECT_NE(size.find("masks/001.png"), std::string::npos) << size;
    EXPECT_NE(size.find("is 32x24, but its image"), std::string::npos) << size;

    write_png((dir / "masks/001.png").string(), column_mask(0, kW));
    const std::string all = error_of([&] { load_images(open_dataset(dir.str())); });
    EXPECT_NE(all.find("masks/001.png"), std::string::npos) << all;
    EXPECT_NE(all.find("excludes every pixel"), std::string::npos) << all;

    DatasetOptions elsewhere;
    elsewhere.masks = "no_such_folder";
    const std::string folder = error_of([&] { open_dataset(dir.str(), elsewhere); });
    EXPECT_NE(folder.find("no_such_folder: mask folder not found"), std::string::npos) << folder;
}

// --masks names another folder; with a distorted lens the mask goes through the same remap as the photo,
// and the border the lens did not see is excluded too.
TEST(UserMasks, MasksFlagAndUndistortion) {
    test::TempDir dir;
    write_colmap(dir / "sparse/0", dir / "images", 2, {kOpencv});
    fs::create_directories(dir / "segmentation");
    for (const char* name : {"000.png", "001.png"})
        write_png((dir / "segmentation" / name).string(), column_mask(40, 64));
    DatasetOptions o;
    o.masks = "segmentation";
    o.undistort = Undistort::mask;
    const std::vector<TargetImage> images = load_images(open_dataset(dir.str(), o));
    DatasetOptions border_only = o;
    border_only.masks = "";
    const std::vector<TargetImage> border = load_images(open_dataset(dir.str(), border_only));
    ASSERT_FALSE(border[0].mask.data.empty());  // k1 > 0: a border without a source
    std::size_t both = 0, user_only = 0;
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            const bool border_pixel = border[0].mask.at(x, y) != kMaskValid;
            const bool out = images[0].mask.at(x, y) != kMaskValid;
            if (border_pixel) {
                EXPECT_TRUE(out) << x << "," << y;  // the border stays excluded
            } else if (x < 36) {
                EXPECT_FALSE(out) << x << "," << y;  // far from the masked columns
            }
            both += out;
            user_only += out && !border_pixel;
        }
    EXPECT_GT(user_only, 20u * kH / 2);  // the columns ≥ 40, moved a little by the lens
    EXPECT_GT(both, excluded(border[0]));
}

TEST(UserMasks, AlphaOfRgbaPhotosMasksOrComposites) {
    test::TempDir dir;
    write_colmap(dir / "sparse/0", dir / "images", 2, {kPinhole}, 4);
    const Image<std::uint8_t> rgba = photo(kW, kH, 4);
    std::size_t transparent = 0;
    for (std::size_t p = 0; p < rgba.pixels(); ++p) transparent += rgba.data[4 * p + 3] < 128;
    ASSERT_GT(transparent, 0u);
    // COLMAP photos: alpha is a mask by default; the colour is kept as it is.
    const Dataset ds = open_dataset(dir.str());
    EXPECT_EQ(ds.alpha, AlphaUse::mask);
    const std::vector<TargetImage> masked = load_images(ds);
    EXPECT_EQ(excluded(masked[0]), transparent);
    EXPECT_EQ(masked[0].rgb.at(5, 7, 1), rgba.at(5, 7, 1));
    // --alpha composite: over the background, nothing excluded.
    DatasetOptions o;
    o.alpha = AlphaUse::composite;
    o.background = {1, 1, 1};
    const std::vector<TargetImage> composited = load_images(open_dataset(dir.str(), o));
    EXPECT_TRUE(composited[0].mask.data.empty());
    const double a = rgba.at(5, 7, 3) / 255.0;
    EXPECT_NEAR(composited[0].rgb.at(5, 7, 1), a * rgba.at(5, 7, 1) + (1 - a) * 255, 1.0);
}

TEST(Layouts, InriaConvertPyBeforeAndAfterUndistortion) {
    test::TempDir dir;
    // convert.py's input: photos in input/, the distorted model in distorted/sparse/0.
    write_colmap(dir / "distorted/sparse/0", dir / "input", 3, {kOpencv});
    const Dataset before = open_dataset(dir.str());
    EXPECT_EQ(before.views.size(), 3u);
    EXPECT_EQ(before.image_dir, (dir / "input").string());
    EXPECT_EQ(before.views[0].source_camera.model, CameraModel::opencv);
    EXPECT_NE(describe(before).find("Inria convert.py layout"), std::string::npos) << describe(before);
    EXPECT_EQ(load_images(before).size(), 3u);
    // After it: the undistorted images/ and sparse/0 are what Inria trains on, and so does radiant.
    write_colmap(dir / "sparse/0", dir / "images", 2, {kPinhole});
    const Dataset after = open_dataset(dir.str());
    EXPECT_EQ(after.views.size(), 2u);
    EXPECT_EQ(after.image_dir, (dir / "images").string());
    EXPECT_EQ(after.views[0].camera.model, CameraModel::pinhole);
}

TEST(Layouts, ImagesFlagReadsAnotherFolder) {
    test::TempDir dir;
    write_colmap(dir / "sparse/0", dir / "photos", 2, {kPinhole});
    EXPECT_NE(error_of([&] { open_dataset(dir.str()); }).find("images: image folder not found"),
              std::string::npos);
    DatasetOptions o;
    o.images = "photos";
    EXPECT_EQ(open_dataset(dir.str(), o).views.size(), 2u);
    o.images = (dir / "photos").string();  // absolute
    EXPECT_EQ(load_images(open_dataset(dir.str(), o)).size(), 2u);
}

// nerfstudio's transforms.json: OPENCV or OPENCV_FISHEYE camera_model, per-frame mask_path, ply_file_path.
TEST(Layouts, NerfstudioTransformsWithMasksAndPoints) {
    test::TempDir dir;
    fs::create_directories(dir / "images");
    fs::create_directories(dir / "masks");
    nlohmann::json doc = {{"camera_model", "OPENCV"},
                          {"fl_x", 60},
                          {"fl_y", 60},
                          {"cx", 32},
                          {"cy", 24},
                          {"w", kW},
                          {"h", kH},
                          {"k1", 0.05},
                          {"k2", -0.01},
                          {"p1", 0.0},
                          {"p2", 0.0},
                          {"ply_file_path", "sparse_pc.ply"}};
    doc["frames"] = nlohmann::json::array();
    for (int i = 0; i < 3; ++i) {
        const std::string name = fmt::format("frame_{:05d}.png", i + 1);
        write_png((dir / "images" / name).string(), photo());
        write_png((dir / "masks" / name).string(), column_mask(0, 10 + i));
        doc["frames"].push_back(
            {{"file_path", "images/" + name},
             {"mask_path", "masks/" + name},
             {"transform_matrix", {{1, 0, 0, 0.1 * i}, {0, 1, 0, 0}, {0, 0, 1, 3}, {0, 0, 0, 1}}}});
    }
    PointCloud pc;
    pc.points = {{0, 0, 0}, {0.1f, 0.2f, 0.3f}};
    pc.colours = {{1, 2, 3}, {4, 5, 6}};
    write_point_cloud_ply((dir / "sparse_pc.ply").string(), pc);
    write_file_atomic((dir / "transforms.json").string(), doc.dump());
    DatasetOptions o;
    o.undistort = Undistort::none;  // as `ray` reads it: the masks as drawn
    const Dataset ds = open_dataset(dir.str(), o);
    EXPECT_EQ(ds.points.size(), 2u);
    EXPECT_EQ(ds.views[0].source_camera.model, CameraModel::opencv);
    ASSERT_EQ(ds.views[2].mask_path, (dir / "masks/frame_00003.png").lexically_normal().string());
    const std::vector<TargetImage> images = load_images(ds);
    EXPECT_EQ(excluded(images[0]), 10u * kH);
    EXPECT_EQ(excluded(images[2]), 12u * kH);

    doc["camera_model"] = "OPENCV_FISHEYE";
    doc.erase("p1");
    doc.erase("p2");
    doc["k3"] = 0.001;
    doc["k4"] = -0.002;
    write_file_atomic((dir / "transforms.json").string(), doc.dump());
    const Camera fish = open_dataset(dir.str(), o).views[0].source_camera;
    EXPECT_EQ(fish.model, CameraModel::fisheye);
    EXPECT_EQ(fish.distortion, (std::vector<double>{0.05, -0.01, 0.001, -0.002}));

    doc["frames"][1]["mask_path"] = "masks/none.png";
    write_file_atomic((dir / "transforms.json").string(), doc.dump());
    const std::string e = error_of([&] { open_dataset(dir.str(), o); });
    EXPECT_NE(e.find("masks/none.png of image frame_00002.png is missing"), std::string::npos) << e;
}

// COLMAP with a camera per image (SIMPLE_RADIAL, as COLMAP writes for unrelated photos): every image is
// undistorted through its own lens, and `radiant info` gives ranges instead of a line per camera.
TEST(Layouts, PerImageCamerasAreUndistortedEachAndSummarised) {
    test::TempDir dir;
    std::vector<test::FixtureCamera> cams;
    for (int i = 0; i < 7; ++i)
        cams.push_back(
            {std::uint32_t(i + 1), 2, "SIMPLE_RADIAL", kW, kH, {55.0 + i, 32, 24, -0.05 + 0.025 * i}});
    write_colmap(dir / "sparse/0", dir / "images", 7, cams);
    for (Undistort u : {Undistort::mask, Undistort::crop}) {
        DatasetOptions o;
        o.undistort = u;
        const Dataset ds = open_dataset(dir.str(), o);
        const std::string text = describe(ds);
        EXPECT_NE(text.find("cameras     7 distinct"), std::string::npos) << text;
        EXPECT_NE(text.find("fx 55.0 to 61.0"), std::string::npos) << text;
        EXPECT_NE(text.find("k1 -0.05 to 0.1"), std::string::npos) << text;
        EXPECT_LT(std::count(text.begin(), text.end(), '\n'), 20) << text;
        const std::vector<TargetImage> images = load_images(ds);
        ASSERT_EQ(images.size(), 7u);
        // k1 < 0 pulls the border in (nothing to mask); k1 > 0 leaves one without a source under `mask`.
        if (u == Undistort::mask) {
            EXPECT_EQ(excluded(images[0]), 0u);
            EXPECT_GT(excluded(images[6]), 0u);
        } else {
            EXPECT_NE(ds.views[0].camera.fx, ds.views[6].camera.fx);  // a crop per lens
            // OpenCV's rectangle reaches one pixel past the last column and row (its ROI is W − 1 wide),
            // which stay masked, and slivers between its samples.
            EXPECT_LT(excluded(images[6]), std::size_t(kW + kH + kW * kH / 100));
        }
    }
}

// Inria's rule: photos over 1600 px on their longer side train at 1600 unless --downscale is given.
TEST(Downscale, LongPhotosAreScaledTo1600UnlessADownscaleIsGiven) {
    test::TempDir dir;
    write_colmap(dir / "sparse/0", dir / "images", 2, {{1, 1, "PINHOLE", 2000, 40, {1500, 1500, 1000, 20}}});
    const Dataset ds = open_dataset(dir.str());
    EXPECT_EQ(ds.views[0].camera.width, 1600);
    EXPECT_EQ(ds.views[0].camera.height, 32);
    EXPECT_DOUBLE_EQ(ds.views[0].camera.fx, 1200);
    EXPECT_DOUBLE_EQ(ds.scale, 0.8);
    ASSERT_EQ(ds.notes.size(), 1u);
    EXPECT_NE(ds.notes[0].find("training at 1/1.25 of full size"), std::string::npos) << ds.notes[0];
    EXPECT_EQ(load_images(ds)[1].rgb.width, 1600);
    DatasetOptions full;
    full.downscale = 1;
    EXPECT_EQ(open_dataset(dir.str(), full).views[0].camera.width, 2000);
    EXPECT_TRUE(open_dataset(dir.str(), full).notes.empty());
    full.downscale = 4;
    EXPECT_EQ(open_dataset(dir.str(), full).views[0].camera.width, 500);
}

}  // namespace
}  // namespace radiant
