#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "radiant/core/error.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/image_io.hpp"

namespace radiant {
namespace {

bool is_png(std::string_view b) {
    return b.size() >= 8 && std::memcmp(b.data(), "\x89PNG\r\n\x1a\n", 8) == 0;
}
bool is_jpeg(std::string_view b) {
    return b.size() >= 3 && std::memcmp(b.data(), "\xff\xd8\xff", 3) == 0;
}

std::uint32_t be32(const unsigned char* p) {
    return std::uint32_t(p[0]) << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

}  // namespace

Image<std::uint8_t> decode_image(std::string_view bytes, const std::string& name, std::size_t max_pixels) {
    if (is_png(bytes)) return decode_png(bytes, name, max_pixels);
    if (is_jpeg(bytes)) return decode_jpeg(bytes, name, max_pixels);
    throw IoError(name, "not a PNG or JPEG image");
}

Image<std::uint8_t> read_image(const std::string& path) {
    return decode_image(read_file(path), path);
}

namespace {

std::string lower_extension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

}  // namespace

bool is_image_extension(const std::string& path) {
    const std::string ext = lower_extension(path);
    return ext == ".png" || ext == ".jpg" || ext == ".jpeg";
}

void write_image(const std::string& path, const Image<std::uint8_t>& image, int jpeg_quality) {
    const std::string ext = lower_extension(path);
    if (ext == ".png")
        write_png(path, image);
    else if (ext == ".jpg" || ext == ".jpeg")
        write_file_atomic(path, encode_jpeg(image, path, jpeg_quality));
    else
        throw IoError(path, "unknown image extension: write .png, .jpg or .jpeg");
}

void write_npy(const std::string& path, const Image<float>& image) {
    // Format 1.0: magic, version, header length, a Python dict padded with spaces to a 64-byte boundary.
    std::string shape = image.channels == 1
                            ? fmt::format("({}, {})", image.height, image.width)
                            : fmt::format("({}, {}, {})", image.height, image.width, image.channels);
    std::string header = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': {}, }}", shape);
    const std::size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    static_assert(std::endian::native == std::endian::little, ".npy is written as little-endian");
    std::string bytes = "\x93NUMPY";
    bytes += char(1);
    bytes += char(0);
    bytes += char(header.size() & 0xff);
    bytes += char(header.size() >> 8);
    bytes += header;
    bytes.append(reinterpret_cast<const char*>(image.data.data()), image.data.size() * sizeof(float));
    write_file_atomic(path, bytes);
}

namespace {

// The first start-of-frame's size; nullopt when the markers before it run past `b` (EXIF thumbnails can
// outgrow any probe).
std::optional<ImageSize> jpeg_frame_size(std::string_view bytes, const std::string& path) {
    const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
    for (std::size_t p = 2;;) {
        if (p + 4 > bytes.size()) return std::nullopt;
        if (b[p] != 0xff) throw IoError(path, fmt::format("corrupt JPEG: no marker at byte {}", p));
        const unsigned char m = b[p + 1];
        const std::size_t len = std::size_t(b[p + 2]) << 8 | b[p + 3];
        if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) {
            if (p + 9 > bytes.size()) return std::nullopt;
            return ImageSize{int(std::size_t(b[p + 7]) << 8 | b[p + 8]),
                             int(std::size_t(b[p + 5]) << 8 | b[p + 6])};
        }
        if (len < 2) throw IoError(path, "corrupt JPEG marker length");
        p += 2 + len;
    }
}

}  // namespace

ImageSize read_image_size(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw IoError(path, "cannot open image");
    std::string head(64 * 1024, '\0');
    in.read(head.data(), std::streamsize(head.size()));
    head.resize(std::size_t(in.gcount()));
    if (is_png(head)) {
        if (head.size() < 24) throw IoError(path, "truncated PNG header");
        const auto* b = reinterpret_cast<const unsigned char*>(head.data());
        return {int(be32(b + 16)), int(be32(b + 20))};
    }
    if (is_jpeg(head)) {
        if (auto size = jpeg_frame_size(head, path)) return *size;
        if (auto size = jpeg_frame_size(read_file(path), path)) return *size;
        throw IoError(path, "truncated JPEG: no frame header");
    }
    throw IoError(path, "not a PNG or JPEG image");
}

Image<std::uint8_t> resize_area(const Image<std::uint8_t>& in, int width, int height) {
    if (width <= 0 || height <= 0) throw Error("resize_area: target size must be positive");
    Image<std::uint8_t> out(width, height, in.channels);
    const double sx = double(in.width) / width, sy = double(in.height) / height;
    // Per output column/row: the input span [x0, x1) in input pixels.
    std::vector<double> acc(std::size_t(in.channels));
#pragma omp parallel for schedule(static) firstprivate(acc)
    for (int y = 0; y < height; ++y) {
        const double y0 = y * sy, y1 = (y + 1) * sy;
        for (int x = 0; x < width; ++x) {
            const double x0 = x * sx, x1 = (x + 1) * sx;
            std::fill(acc.begin(), acc.end(), 0.0);
            double wsum = 0;
            for (int iy = int(y0); iy < int(std::ceil(y1)) && iy < in.height; ++iy) {
                const double wy = std::min(y1, iy + 1.0) - std::max(y0, double(iy));
                for (int ix = int(x0); ix < int(std::ceil(x1)) && ix < in.width; ++ix) {
                    const double w = wy * (std::min(x1, ix + 1.0) - std::max(x0, double(ix)));
                    if (w <= 0) continue;
                    for (int c = 0; c < in.channels; ++c) acc[std::size_t(c)] += w * in.at(ix, iy, c);
                    wsum += w;
                }
            }
            for (int c = 0; c < in.channels; ++c)
                out.at(x, y, c) = std::uint8_t(std::clamp(std::lround(acc[std::size_t(c)] / wsum), 0L, 255L));
        }
    }
    return out;
}

Image<std::uint8_t> to_rgb(const Image<std::uint8_t>& in, const double background[3]) {
    if (in.channels == 3) return in;
    Image<std::uint8_t> out(in.width, in.height, 3);
    const bool alpha = in.channels == 2 || in.channels == 4;
    for (std::size_t p = 0; p < in.pixels(); ++p) {
        const std::uint8_t* s = in.data.data() + p * std::size_t(in.channels);
        const double a = alpha ? s[in.channels - 1] / 255.0 : 1.0;
        for (int c = 0; c < 3; ++c) {
            const double v = in.channels >= 3 ? s[c] : s[0];
            out.data[3 * p + std::size_t(c)] =
                std::uint8_t(std::lround(a * v + (1 - a) * 255.0 * background[c]));
        }
    }
    return out;
}

}  // namespace radiant
