#pragma once
// Encodes an RGB image as JPEG with libjpeg, for test fixtures (radiant itself only decodes JPEG).
#include <csetjmp>
#include <cstddef>
#include <cstdio>
#include <string>

#include <jpeglib.h>

#include "radiant/core/image.hpp"

namespace radiant::test {

inline std::string encode_jpeg(const Image<std::uint8_t>& img, int quality = 95) {
    jpeg_compress_struct c{};
    jpeg_error_mgr err{};
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    unsigned char* buf = nullptr;
    unsigned long size = 0;
    jpeg_mem_dest(&c, &buf, &size);
    c.image_width = JDIMENSION(img.width);
    c.image_height = JDIMENSION(img.height);
    c.input_components = img.channels;
    c.in_color_space = img.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, quality, TRUE);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row =
            const_cast<JSAMPROW>(img.data.data() + std::size_t(c.next_scanline) * std::size_t(img.width) *
                                                       std::size_t(img.channels));
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    std::string out(reinterpret_cast<const char*>(buf), size);
    jpeg_destroy_compress(&c);
    std::free(buf);
    return out;
}

}  // namespace radiant::test
