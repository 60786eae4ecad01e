#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "radiant/core/error.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/image_io.hpp"
#include "support/temp_dir.hpp"

namespace radiant {
namespace {

Image<std::uint8_t> gradient(int w, int h) {
    Image<std::uint8_t> img(w, h, 3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c)
                img.data[(std::size_t(y) * w + x) * 3 + c] = std::uint8_t(x * 2 + y * 3 + c * 40);
    return img;
}

std::string error_of(std::string_view bytes, std::size_t max_pixels = kMaxImagePixels) {
    try {
        decode_jpeg(bytes, "x.jpg", max_pixels);
    } catch (const IoError& e) {
        return e.what();
    }
    return "";
}

TEST(Jpeg, DecodesWhatLibjpegEncoded) {
    const Image<std::uint8_t> img = gradient(37, 21);
    const Image<std::uint8_t> back = decode_jpeg(encode_jpeg(img, "fixture.jpg", 100), "x.jpg");
    ASSERT_EQ(back.width, 37);
    ASSERT_EQ(back.height, 21);
    ASSERT_EQ(back.channels, 3);
    int worst = 0;
    for (std::size_t i = 0; i < img.data.size(); ++i)
        worst = std::max(worst, std::abs(img.data[i] - back.data[i]));
    EXPECT_LE(worst, 8);  // quality 100 with 4:2:0 chroma
}

TEST(Jpeg, TruncatedOrCorruptScanIsAnError) {
    const std::string bytes = encode_jpeg(gradient(64, 48), "fixture.jpg");
    // libjpeg would pad the missing rows with grey; radiant refuses to train on invented pixels.
    EXPECT_NE(error_of(std::string_view(bytes).substr(0, bytes.size() * 2 / 3)).find("corrupt JPEG"),
              std::string::npos);
    EXPECT_NE(error_of("\xff\xd8\xff").find("corrupt JPEG"), std::string::npos);
}

TEST(Jpeg, StrayBytesBeforeAMarkerAreTolerated) {
    // Some cameras leave padding between segments; libjpeg skips it with a warning and the image is whole.
    std::string bytes = encode_jpeg(gradient(16, 16), "fixture.jpg");
    const std::size_t app0_end = 4 + (std::size_t(std::uint8_t(bytes[4])) << 8 | std::uint8_t(bytes[5]));
    ASSERT_EQ(std::uint8_t(bytes[app0_end]), 0xff);
    bytes.insert(app0_end, "\x00\x00", 2);
    EXPECT_EQ(error_of(bytes), "");
    EXPECT_EQ(decode_jpeg(bytes, "x.jpg").width, 16);
}

TEST(Jpeg, MorePixelsThanTheBoundIsAnError) {
    const std::string bytes = encode_jpeg(gradient(37, 21), "fixture.jpg");
    EXPECT_EQ(error_of(bytes, 37 * 21), "");
    EXPECT_NE(error_of(bytes, 37 * 21 - 1).find("JPEG is 37x21, more than the 776 pixels"),
              std::string::npos);
}

// radiant render -o x.jpg: what encode_jpeg writes reads back as the image (gray and RGB), and RGBA,
// which JPEG cannot hold, is refused by name rather than written wrong.
TEST(Jpeg, EncodesWhatItDecodes) {
    const Image<std::uint8_t> img = gradient(37, 21);
    const Image<std::uint8_t> back = decode_jpeg(encode_jpeg(img, "x.jpg", 100), "x.jpg");
    ASSERT_EQ(back.width, 37);
    ASSERT_EQ(back.channels, 3);
    int worst = 0;
    for (std::size_t i = 0; i < img.data.size(); ++i)
        worst = std::max(worst, std::abs(img.data[i] - back.data[i]));
    EXPECT_LE(worst, 8);
    Image<std::uint8_t> gray(9, 7, 1);
    for (std::size_t i = 0; i < gray.data.size(); ++i) gray.data[i] = std::uint8_t(i * 4);
    EXPECT_EQ(decode_jpeg(encode_jpeg(gray, "g.jpg"), "g.jpg").channels, 1);
    try {
        encode_jpeg(Image<std::uint8_t>(4, 4, 4), "rgba.jpg");
        FAIL() << "RGBA accepted";
    } catch (const IoError& e) {
        EXPECT_NE(std::string(e.what()).find("rgba.jpg"), std::string::npos);
    }
}

TEST(ImageFiles, WriteImageChoosesTheFormatByExtension) {
    test::TempDir dir;
    const Image<std::uint8_t> img = gradient(16, 12);
    write_image((dir / "a.png").string(), img);
    write_image((dir / "b.JPG").string(), img);
    write_image((dir / "c.jpeg").string(), img);
    EXPECT_EQ(read_file((dir / "a.png").string()).substr(1, 3), "PNG");
    EXPECT_EQ(read_file((dir / "b.JPG").string()).substr(0, 2), "\xff\xd8");
    EXPECT_EQ(read_image((dir / "c.jpeg").string()).width, 16);
    EXPECT_THROW(write_image((dir / "d.tif").string(), img), IoError);
    EXPECT_FALSE(std::filesystem::exists(dir / "d.tif"));
}

// The .npy header NumPy reads: magic, version 1.0, a dict naming little-endian float32 and the shape,
// padded so the data starts on a 64-byte boundary; then the values as they are.
TEST(ImageFiles, NpyHoldsTheRawFloats) {
    test::TempDir dir;
    Image<float> depth(5, 3, 1);
    for (std::size_t i = 0; i < depth.data.size(); ++i) depth.data[i] = 0.5f + float(i);
    write_npy((dir / "d.npy").string(), depth);
    const std::string bytes = read_file((dir / "d.npy").string());
    ASSERT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    const std::size_t header = std::uint8_t(bytes[8]) | std::size_t(std::uint8_t(bytes[9])) << 8;
    EXPECT_EQ((10 + header) % 64, 0u);
    const std::string dict = bytes.substr(10, header);
    EXPECT_NE(dict.find("'descr': '<f4'"), std::string::npos) << dict;
    EXPECT_NE(dict.find("'shape': (3, 5)"), std::string::npos) << dict;
    ASSERT_EQ(bytes.size(), 10 + header + 15 * sizeof(float));
    float v[15];
    std::memcpy(v, bytes.data() + 10 + header, sizeof v);
    EXPECT_EQ(v[0], 0.5f);
    EXPECT_EQ(v[14], 14.5f);
}

TEST(ImageFiles, UniqueFileStems) {
    EXPECT_EQ(unique_file_stems({"test/r_0.png", "train/r_0.png", "r_0.jpg", "r_0.png", "", "a b.JPG"}),
              (std::vector<std::string>{"test_r_0", "train_r_0", "r_0", "r_0_2", "004", "a_b"}));
    EXPECT_EQ(unique_file_stems({"../up.png", "/abs/x.png"}), (std::vector<std::string>{"up", "abs_x"}));
}

}  // namespace
}  // namespace radiant
