#include <png.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "radiant/core/error.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/image_io.hpp"

namespace radiant {
namespace {

// libpng reports errors through longjmp; we keep the message and throw once back in C++ frames.
struct PngContext {
    std::string name;
    std::string message;
    std::string_view input;
    std::size_t read_pos = 0;
    std::string output;
};

void on_error(png_structp png, png_const_charp msg) {
    auto* ctx = static_cast<PngContext*>(png_get_error_ptr(png));
    ctx->message = msg;
    png_longjmp(png, 1);
}
void on_warning(png_structp, png_const_charp) {}

void on_read(png_structp png, png_bytep data, png_size_t length) {
    auto* ctx = static_cast<PngContext*>(png_get_io_ptr(png));
    if (ctx->input.size() - ctx->read_pos < length) png_error(png, "truncated PNG data");
    std::memcpy(data, ctx->input.data() + ctx->read_pos, length);
    ctx->read_pos += length;
}
void on_write(png_structp png, png_bytep data, png_size_t length) {
    auto* ctx = static_cast<PngContext*>(png_get_io_ptr(png));
    ctx->output.append(reinterpret_cast<const char*>(data), length);
}
void on_flush(png_structp) {}

}  // namespace

std::string encode_png(const Image<std::uint8_t>& img, const std::string& name) {
    if (img.width <= 0 || img.height <= 0 || img.channels < 1 || img.channels > 4 ||
        img.data.size() != img.pixels() * std::size_t(img.channels))
        throw IoError(name, "cannot encode an empty or inconsistent image as PNG");
    PngContext ctx{name, {}, {}, 0, {}};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
        png_destroy_write_struct(&png, nullptr);
        throw IoError(name, "out of memory creating a PNG encoder");
    }
    std::vector<png_bytep> rows(std::size_t(img.height));
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        throw IoError(name, "PNG encoding failed: " + ctx.message);
    }
    png_set_write_fn(png, &ctx, on_write, on_flush);
    static constexpr int kColorType[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                          PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    png_set_IHDR(png, info, png_uint_32(img.width), png_uint_32(img.height), 8, kColorType[img.channels],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 6);
    for (int y = 0; y < img.height; ++y)
        rows[std::size_t(y)] = const_cast<png_bytep>(
            img.data.data() + std::size_t(y) * std::size_t(img.width) * std::size_t(img.channels));
    png_set_rows(png, info, rows.data());
    png_write_png(png, info, PNG_TRANSFORM_IDENTITY, nullptr);
    png_destroy_write_struct(&png, &info);
    return std::move(ctx.output);
}

void write_png(const std::string& path, const Image<std::uint8_t>& image) {
    write_file_atomic(path, encode_png(image, path));
}

Image<std::uint8_t> decode_png(std::string_view bytes, const std::string& name, std::size_t max_pixels) {
    if (bytes.size() < 8 || png_sig_cmp(reinterpret_cast<png_const_bytep>(bytes.data()), 0, 8) != 0)
        throw IoError(name, "not a PNG file (bad signature)");
    PngContext ctx{name, {}, bytes, 0, {}};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
        png_destroy_read_struct(&png, nullptr, nullptr);
        throw IoError(name, "out of memory creating a PNG decoder");
    }
    Image<std::uint8_t> img;
    std::vector<png_bytep> rows;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        throw IoError(name, "corrupt PNG: " + ctx.message);
    }
    png_set_read_fn(png, &ctx, on_read);
    png_set_user_limits(png, 65536, 65536);
    png_read_info(png, info);
    {
        const std::size_t w = png_get_image_width(png, info), h = png_get_image_height(png, info);
        if (w * h > max_pixels) {
            png_destroy_read_struct(&png, &info, nullptr);
            throw IoError(name,
                          fmt::format("PNG is {}x{}, more than the {} pixels radiant decodes; downscale it "
                                      "first",
                                      w, h, max_pixels));
        }
        // Deflate's best ratio is 1032:1: a header claiming more raw rows than that could unpack from the
        // rest of the file is truncated, and decoding it would only allocate and fill.
        const std::size_t raw = h * png_get_rowbytes(png, info);
        const std::size_t compressed = bytes.size() - std::min(bytes.size(), ctx.read_pos);
        if (raw > 1032 * compressed + 1024) {
            png_destroy_read_struct(&png, &info, nullptr);
            throw IoError(name,
                          fmt::format("truncated PNG: {}x{} pixels need at least {} compressed bytes, the "
                                      "file has {} left",
                                      w, h, raw / 1032, compressed));
        }
    }
    png_set_strip_16(png);
    png_set_packing(png);
    png_byte color = png_get_color_type(png, info);
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    png_read_update_info(png, info);
    int channels = png_get_channels(png, info);
    img = Image<std::uint8_t>(int(png_get_image_width(png, info)), int(png_get_image_height(png, info)),
                              channels);
    rows.resize(std::size_t(img.height));
    for (int y = 0; y < img.height; ++y)
        rows[std::size_t(y)] =
            img.data.data() + std::size_t(y) * std::size_t(img.width) * std::size_t(channels);
    png_read_image(png, rows.data());
    png_destroy_read_struct(&png, &info, nullptr);
    return img;
}

Image<std::uint8_t> read_png(const std::string& path) {
    return decode_png(read_file(path), path);
}

Image<std::uint8_t> to_u8(const Image<float>& image) {
    Image<std::uint8_t> out(image.width, image.height, image.channels);
    for (std::size_t i = 0; i < image.data.size(); ++i) {
        float v = image.data[i];
        v = std::isfinite(v) ? (v < 0.f ? 0.f : (v > 1.f ? 1.f : v)) : 0.f;
        out.data[i] = std::uint8_t(std::lround(v * 255.f));
    }
    return out;
}

}  // namespace radiant
