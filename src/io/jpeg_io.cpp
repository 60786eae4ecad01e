// jpeglib.h needs size_t and FILE declared first.
#include <csetjmp>
#include <cstddef>
#include <cstdio>

#include <jpeglib.h>

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

}  // namespace

Image<std::uint8_t> decode_jpeg(std::string_view bytes, const std::string& name) {
    jpeg_decompress_struct cinfo{};
    JpegError err{};
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = on_error;
    err.mgr.output_message = on_message;
    Image<std::uint8_t> img;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        throw IoError(name, fmt::format("corrupt JPEG: {}", err.message));
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, reinterpret_cast<const unsigned char*>(bytes.data()),
                 static_cast<unsigned long>(bytes.size()));
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_width > 65536 || cinfo.output_height > 65536) {
        jpeg_destroy_decompress(&cinfo);
        throw IoError(name, "JPEG larger than 65536 pixels on a side");
    }
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

}  // namespace radiant
