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
