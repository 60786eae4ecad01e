#include <gtest/gtest.h>

#include <string>

#include "radiant/core/error.hpp"
#include "radiant/io/image_io.hpp"
#include "support/jpeg_writer.hpp"

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
    const Image<std::uint8_t> back = decode_jpeg(test::encode_jpeg(img, 100), "x.jpg");
    ASSERT_EQ(back.width, 37);
    ASSERT_EQ(back.height, 21);
    ASSERT_EQ(back.channels, 3);
    int worst = 0;
    for (std::size_t i = 0; i < img.data.size(); ++i)
        worst = std::max(worst, std::abs(img.data[i] - back.data[i]));
    EXPECT_LE(worst, 8);  // quality 100 with 4:2:0 chroma
}

TEST(Jpeg, TruncatedOrCorruptScanIsAnError) {
    const std::string bytes = test::encode_jpeg(gradient(64, 48));
    // libjpeg would pad the missing rows with grey; radiant refuses to train on invented pixels.
    EXPECT_NE(error_of(std::string_view(bytes).substr(0, bytes.size() * 2 / 3)).find("corrupt JPEG"),
              std::string::npos);
    EXPECT_NE(error_of("\xff\xd8\xff").find("corrupt JPEG"), std::string::npos);
}

TEST(Jpeg, StrayBytesBeforeAMarkerAreTolerated) {
    // Some cameras leave padding between segments; libjpeg skips it with a warning and the image is whole.
    std::string bytes = test::encode_jpeg(gradient(16, 16));
    const std::size_t app0_end = 4 + (std::size_t(std::uint8_t(bytes[4])) << 8 | std::uint8_t(bytes[5]));
    ASSERT_EQ(std::uint8_t(bytes[app0_end]), 0xff);
    bytes.insert(app0_end, "\x00\x00", 2);
    EXPECT_EQ(error_of(bytes), "");
    EXPECT_EQ(decode_jpeg(bytes, "x.jpg").width, 16);
}

TEST(Jpeg, MorePixelsThanTheBoundIsAnError) {
    const std::string bytes = test::encode_jpeg(gradient(37, 21));
    EXPECT_EQ(error_of(bytes, 37 * 21), "");
    EXPECT_NE(error_of(bytes, 37 * 21 - 1).find("JPEG is 37x21, more than the 776 pixels"),
              std::string::npos);
}

}  // namespace
}  // namespace radiant
