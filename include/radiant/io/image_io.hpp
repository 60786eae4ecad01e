#pragma once
// Image files. PNG through libpng; writes are atomic.
#include <cstdint>
#include <string>
#include <string_view>

#include "radiant/core/image.hpp"

namespace radiant {

// 8-bit gray (1), gray+alpha (2), RGB (3) or RGBA (4) channels.
void write_png(const std::string& path, const Image<std::uint8_t>& image);
std::string encode_png(const Image<std::uint8_t>& image, const std::string& name);

// Decodes 8- or 16-bit PNG (gray, gray+alpha, RGB, RGBA, palette) to 8 bits per channel, keeping the
// channel count (palette → RGB or RGBA). Throws IoError naming the file.
Image<std::uint8_t> read_png(const std::string& path);
Image<std::uint8_t> decode_png(std::string_view bytes, const std::string& name);

// [0, 1] floats to 8 bits, rounding to nearest and clamping.
Image<std::uint8_t> to_u8(const Image<float>& image);

}  // namespace radiant

namespace radiant {

// Baseline and progressive JPEG through libjpeg-turbo, decoded to RGB (gray stays 1 channel). EXIF
// orientation is ignored, as COLMAP does.
Image<std::uint8_t> decode_jpeg(std::string_view bytes, const std::string& name);

// PNG or JPEG by content. Throws IoError for anything else.
Image<std::uint8_t> decode_image(std::string_view bytes, const std::string& name);
Image<std::uint8_t> read_image(const std::string& path);

// Width and height from the file header only.
struct ImageSize {
    int width = 0, height = 0;
};
ImageSize read_image_size(const std::string& path);

// Area-weighted resampling (each output pixel averages the input area it covers, partial pixels weighted).
Image<std::uint8_t> resize_area(const Image<std::uint8_t>& image, int width, int height);

// To 3 channels: gray replicated; alpha composited over `background` (0..1 per channel).
Image<std::uint8_t> to_rgb(const Image<std::uint8_t>& image, const double background[3]);

}  // namespace radiant
