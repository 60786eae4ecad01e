#include <gtest/gtest.h>

#include <cmath>

#include "radiant/core/error.hpp"
#include "radiant/io/image_io.hpp"

namespace radiant {
namespace {

// PNG's chunk CRC (ISO 3309, as zlib's crc32), over chunk type and data.
std::uint32_t png_crc(std::string_view bytes) {
    std::uint32_t c = 0xffffffffu;
    for (unsigned char b : bytes) {
        c ^= b;
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
}

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

TEST(Png, HeaderClaimingMoreThanTheDataHoldsIsTruncated) {
    // A 2x2 PNG whose header is patched to 40000x40000 (CRC fixed): 4.8 GB of rows from 70 bytes.
    std::string bytes = encode_png(Image<std::uint8_t>(2, 2, 3, 7), "x.png");
    const unsigned char big[4] = {0, 0, 0x9c, 0x40};
    for (int i = 0; i < 4; ++i) bytes[16 + i] = char(big[i]), bytes[20 + i] = char(big[i]);
    const std::uint32_t crc = png_crc(std::string_view(bytes).substr(12, 17));
    for (int i = 0; i < 4; ++i) bytes[29 + i] = char(crc >> (24 - 8 * i));
    try {
        decode_png(bytes, "big.png", std::size_t(1) << 31);
        ADD_FAILURE() << "no error";
    } catch (const IoError& e) {
        EXPECT_NE(std::string(e.what()).find("truncated PNG: 40000x40000"), std::string::npos) << e.what();
    }
}

TEST(Png, MorePixelsThanTheBoundIsAnError) {
    const std::string bytes = encode_png(Image<std::uint8_t>(37, 21, 3, 7), "x.png");
    EXPECT_EQ(decode_png(bytes, "x.png", 37 * 21).width, 37);
    try {
        decode_png(bytes, "x.png", 37 * 21 - 1);
        ADD_FAILURE() << "no error";
    } catch (const IoError& e) {
        EXPECT_NE(std::string(e.what()).find("PNG is 37x21, more than the 776 pixels"), std::string::npos)
            << e.what();
    }
}

TEST(Png, FloatToU8RoundsAndClamps) {
    Image<float> f(4, 1, 1);
    f.data = {-0.5f, 0.5f, 2.0f, NAN};
    Image<std::uint8_t> u = to_u8(f);
    EXPECT_EQ(u.data, (std::vector<std::uint8_t>{0, 128, 255, 0}));
}

}  // namespace
}  // namespace radiant
