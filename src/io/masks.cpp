#include "radiant/io/masks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>
#include <vector>

#include "radiant/core/error.hpp"
#include "radiant/io/image_io.hpp"

namespace radiant {
namespace fs = std::filesystem;

Image<std::uint8_t> mask_from_values(const Image<std::uint8_t>& in) {
    const int colour = in.channels >= 3 ? 3 : 1;  // gray or RGB; alpha (2nd or 4th channel) ignored
    Image<std::uint8_t> level(in.width, in.height, 1);
    for (std::size_t p = 0; p < in.pixels(); ++p) {
        int sum = 0;
        for (int c = 0; c < colour; ++c) sum += in.data[p * std::size_t(in.channels) + std::size_t(c)];
        level.data[p] = std::uint8_t((sum + colour / 2) / colour);
    }
    const bool zero_one =
        std::all_of(level.data.begin(), level.data.end(), [](std::uint8_t v) { return v <= 1; });
    const std::uint8_t threshold = zero_one ? 1 : 128;
    for (std::uint8_t& v : level.data) v = v >= threshold ? kMaskValid : kMaskInvalid;
    return level;
}

Image<std::uint8_t> read_mask(const std::string& path) {
    return mask_from_values(read_image(path));
}

Image<std::uint8_t> mask_from_alpha(const Image<std::uint8_t>& in) {
    if (in.channels != 2 && in.channels != 4) return {};
    Image<std::uint8_t> m(in.width, in.height, 1);
    for (std::size_t p = 0; p < in.pixels(); ++p)
        m.data[p] = in.data[p * std::size_t(in.channels) + std::size_t(in.channels - 1)] >= 128
                        ? kMaskValid
                        : kMaskInvalid;
    return m;
}

Image<std::uint8_t> resize_mask(const Image<std::uint8_t>& mask, int width, int height) {
    if (mask.data.empty() || (mask.width == width && mask.height == height)) return mask;
    RADIANT_CHECK(width > 0 && height > 0 && mask.channels == 1, "resize_mask: bad size or channels");
    Image<std::uint8_t> out(width, height, 1);
    const double sx = double(mask.width) / width, sy = double(mask.height) / height;
    // Each output pixel covers the input span [x·sx, (x+1)·sx) × [y·sy, (y+1)·sy); pixels it overlaps by
    // less than 1e-9 of a pixel (rounding at the span's ends) do not count as covered.
    auto span = [](int i, double s, int n) {
        const int lo = int(std::floor(i * s + 1e-9)), hi = int(std::ceil((i + 1) * s - 1e-9));
        return std::pair<int, int>{std::max(0, lo), std::min(n, std::max(hi, lo + 1))};
    };
#pragma omp parallel for schedule(static)
    for (int y = 0; y < height; ++y) {
        const auto [y0, y1] = span(y, sy, mask.height);
        for (int x = 0; x < width; ++x) {
            const auto [x0, x1] = span(x, sx, mask.width);
            bool ok = true;
            for (int iy = y0; iy < y1 && ok; ++iy)
                for (int ix = x0; ix < x1 && ok; ++ix) ok = mask.at(ix, iy) == kMaskValid;
            out.at(x, y) = ok ? kMaskValid : kMaskInvalid;
        }
    }
    return out;
}

Image<std::uint8_t> intersect_masks(const Image<std::uint8_t>& a, const Image<std::uint8_t>& b) {
    if (a.data.empty()) return b;
    if (b.data.empty()) return a;
    RADIANT_CHECK(a.width == b.width && a.height == b.height && a.channels == 1 && b.channels == 1,
                  "masks to intersect differ in size");
    Image<std::uint8_t> m = a;
    for (std::size_t p = 0; p < m.data.size(); ++p)
        m.data[p] = a.data[p] == kMaskValid && b.data[p] == kMaskValid ? kMaskValid : kMaskInvalid;
    return m;
}

bool excludes_any(const Image<std::uint8_t>& mask) {
    return std::any_of(mask.data.begin(), mask.data.end(), [](std::uint8_t v) { return v != kMaskValid; });
}

std::string find_mask(const std::string& mask_dir, const std::string& image_name) {
    const fs::path rel(image_name);
    const fs::path base = fs::path(mask_dir) / rel;
    std::vector<fs::path> candidates{base, fs::path(base.string() + ".png")};
    for (const char* ext : {".png", ".jpg", ".jpeg", ".PNG", ".JPG", ".JPEG"})
        candidates.push_back(fs::path(base).replace_extension(ext));
    std::error_code ec;
    for (const fs::path& p : candidates)
        if (fs::is_regular_file(p, ec)) return p.string();
    return {};
}

}  // namespace radiant
