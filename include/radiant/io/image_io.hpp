#pragma once
// Image files. PNG through libpng; writes are atomic.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "radiant/core/image.hpp"

namespace radiant {

// The most pixels a decoder accepts (≈268 MP, e.g. 16384²): beyond it the decoded image alone needs
// over a gigabyte, and no capture for splatting needs that. A caller may pass a smaller bound.
inline constexpr std::size_t kMaxImagePixels = std::size_t(1) << 28;

// 8-bit gray (1), gray+alpha (2), RGB (3) or RGBA (4) channels.
void write_png(const std::string& path, const Image<std::uint8_t>& image);
std::string encode_png(const Image<std::uint8_t>& image, const std::string& name);

// Decodes 8- or 16-bit PNG (gray, gray+alpha, RGB, RGBA, palette) to 8 bits per channel, keeping the
// channel count (palette → RGB or RGBA). Throws IoError naming the file.
Image<std::uint8_t> read_png(const std::string& path);
// A PNG whose header declares more pixels than its compressed data could hold (deflate packs at most
// 1032:1) is rejected as truncated before anything is allocated.
Image<std::uint8_t> decode_png(std::string_view bytes, const std::string& name,
                               std::size_t max_pixels = kMaxImagePixels);

// [0, 1] floats to 8 bits, rounding to nearest and clamping.
Image<std::uint8_t> to_u8(const Image<float>& image);

}  // namespace radiant

namespace radiant {

// Baseline and progressive JPEG through libjpeg-turbo, decoded to RGB (gray stays 1 channel). EXIF
// orientation is ignored, as COLMAP does. Data that libjpeg would have to invent (a truncated or
// corrupt scan, which it pads with grey) is an error, as are more than 1000 progressive scans.
Image<std::uint8_t> decode_jpeg(std::string_view bytes, const std::string& name,
                                std::size_t max_pixels = kMaxImagePixels);

// PNG or JPEG by content. Throws IoError for anything else.
Image<std::uint8_t> decode_image(std::string_view bytes, const std::string& name,
                                 std::size_t max_pixels = kMaxImagePixels);
Image<std::uint8_t> read_image(const std::string& path);

// Baseline JPEG of a gray or RGB image (quality 1..100).
std::string encode_jpeg(const Image<std::uint8_t>& image, const std::string& name, int quality = 95);

// PNG or JPEG by the path's extension (.png, .jpg, .jpeg; any case), atomically. Throws IoError naming the
// path for any other extension.
void write_image(const std::string& path, const Image<std::uint8_t>& image, int jpeg_quality = 95);
bool is_image_extension(const std::string& path);

// A float image as a NumPy .npy array (little-endian float32, shape [H, W] or [H, W, C]), atomically: the
// raw values for scripts (depth in scene units).
void write_npy(const std::string& path, const Image<float>& image);

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
