// jpeglib.h needs size_t and FILE declared first.
#include <csetjmp>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include <jpeglib.h>
// After jpeglib.h, which it needs: the message codes.
#include <jerror.h>

#include <fmt/format.h>

#include "radiant/core/error.hpp"
#include "radiant/io/image_io.hpp"

namespace radiant {
namespace {

// libjpeg reports fatal errors through error_exit; jump back and throw from a C++ frame.
struct JpegError {
    jpeg_error_mgr mgr;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

void on_error(j_common_ptr cinfo) {
    auto* err = reinterpret_cast<JpegError*>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, err->message);
    std::longjmp(err->jump, 1);
}
void on_message(j_common_ptr) {}

// Warnings (level -1) mean libjpeg met data it could not decode and is filling in grey: a truncated or
// corrupt photo, which must not become a training target. Only stray bytes before a marker are harmless.
void on_emit(j_common_ptr cinfo, int level) {
    if (level == -1 && cinfo->err->msg_code != JWRN_EXTRANEOUS_DATA) on_error(cinfo);
}

// Each progressive scan rewrites every coefficient, so a few bytes per scan can make decoding arbitrarily
// slow; real encoders write about ten.
constexpr int kMaxProgressiveScans = 1000;
void on_progress(j_common_ptr cinfo) {
    auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
    if (d->input_scan_number > kMaxProgressiveScans) {
        auto* err = reinterpret_cast<JpegError*>(cinfo->err);
        std::snprintf(err->message, sizeof err->message, "more than %d progressive scans",
                      kMaxProgressiveScans);
        std::longjmp(err->jump, 1);
    }
}

}  // namespace

Image<std::uint8_t> decode_jpeg(std::string_view bytes, const std::string& name, std::size_t max_pixels) {
    jpeg_decompress_struct cinfo{};
    JpegError err{};
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = on_error;
    err.mgr.output_message = on_message;
    err.mgr.emit_message = on_emit;
    jpeg_progress_mgr progress{};
    progress.progress_monitor = on_progress;
    Image<std::uint8_t> img;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        throw IoError(name, fmt::format("corrupt JPEG: {}", err.message));
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, reinterpret_cast<const unsigned char*>(bytes.data()),
                 static_cast<unsigned long>(bytes.size()));
    cinfo.progress = &progress;
    jpeg_read_header(&cinfo, TRUE);
    if (std::size_t(cinfo.image_width) * cinfo.image_height > max_pixels) {
        const auto w = cinfo.image_width, h = cinfo.image_height;
        jpeg_destroy_decompress(&cinfo);
        throw IoError(
            name, fmt::format("JPEG is {}x{}, more than the {} pixels radiant decodes; downscale it first", w,
                              h, max_pixels));
    }
    cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&cinfo);
    img =
        Image<std::uint8_t>(int(cinfo.output_width), int(cinfo.output_height), int(cinfo.output_components));
    const std::size_t stride = std::size_t(img.width) * std::size_t(img.channels);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = img.data.data() + std::size_t(cinfo.output_scanline) * stride;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return img;
}

std::string encode_jpeg(const Image<std::uint8_t>& img, const std::string& name, int quality) {
    if (img.width <= 0 || img.height <= 0 || (img.channels != 1 && img.channels != 3) ||
        img.data.size() != img.pixels() * std::size_t(img.channels))
        throw IoError(name, "JPEG holds gray or RGB images only (no alpha); write PNG for this one");
    if (quality < 1 || quality > 100)
        throw IoError(name, fmt::format("JPEG quality {} is not 1..100", quality));
    jpeg_compress_struct cinfo{};
    JpegError err{};
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = on_error;
    err.mgr.output_message = on_message;
    unsigned char* buffer = nullptr;
    unsigned long size = 0;
    if (setjmp(err.jump)) {
        jpeg_destroy_compress(&cinfo);
        std::free(buffer);
        throw IoError(name, fmt::format("JPEG encoding failed: {}", err.message));
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &buffer, &size);
    cinfo.image_width = JDIMENSION(img.width);
    cinfo.image_height = JDIMENSION(img.height);
    cinfo.input_components = img.channels;
    cinfo.in_color_space = img.channels == 3 ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    const std::size_t stride = std::size_t(img.width) * std::size_t(img.channels);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = const_cast<JSAMPROW>(img.data.data() + std::size_t(cinfo.next_scanline) * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    std::string out(reinterpret_cast<const char*>(buffer), size);
    jpeg_destroy_compress(&cinfo);
    std::free(buffer);
    return out;
}

}  // namespace radiant
