#include <gtest/gtest.h>

#include <cmath>

#include "radiant/core/error.hpp"
#include "radiant/io/image_io.hpp"

namespace radiant {
namespace {

TEST(Png, RoundTripsEveryChannelCount) {
    for (int ch = 1; ch <= 4; ++ch) {
        Image<std::uint8_t> img(37, 21, ch);
        for (std::size_t i = 0; i < img.data.size(); ++i) img.data[i] = std::uint8_t((i * 37 + 11) % 256);
        Image<std::uint8_t> back = decode_png(encode_png(img, "mem.png"), "mem.png");
        EXPECT_EQ(back.width, 37);
        EXPECT_EQ(back.height, 21);
        EXPECT_EQ(back.channels, ch);
        EXPECT_EQ(back.data, img.data);
    }
}

TEST(Png, CorruptDataIsAnError) {
    Image<std::uint8_t> img(8, 8, 3, 100);
    std::string bytes = encode_png(img, "x.png");
    EXPECT_THROW(decode_png("not a png at all", "x.png"), IoError);
    EXPECT_THROW(decode_png(std::string_view(bytes).substr(0, bytes.size() / 2), "x.png"), IoError);
    std::string flipped = bytes;
    flipped[40] = char(flipped[40] ^ 0x5a);
    EXPECT_THROW(decode_png(flipped, "x.png"), IoError);
}

TEST(Png, FloatToU8RoundsAndClamps) {
    Image<float> f(4, 1, 1);
    f.data = {-0.5f, 0.5f, 2.0f, NAN};
    Image<std::uint8_t> u = to_u8(f);
    EXPECT_EQ(u.data, (std::vector<std::uint8_t>{0, 128, 255, 0}));
}

}  // namespace
}  // namespace radiant
