#pragma once
// An interleaved image: data[(y·width + x)·channels + c], row 0 at the top.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace radiant {

template <class T>
struct Image {
    int width = 0, height = 0, channels = 0;
    std::vector<T> data;

    Image() = default;
    Image(int w, int h, int c, T fill = T(0))
        : width(w), height(h), channels(c), data(std::size_t(w) * std::size_t(h) * std::size_t(c), fill) {}

    std::size_t pixels() const { return std::size_t(width) * std::size_t(height); }
    T& at(int x, int y, int c = 0) {
        return data[(std::size_t(y) * std::size_t(width) + std::size_t(x)) * channels + c];
    }
    const T& at(int x, int y, int c = 0) const {
        return data[(std::size_t(y) * std::size_t(width) + std::size_t(x)) * channels + c];
    }
};

// Mask values: a pixel counts (trains and scores) where its mask is kMaskValid.
inline constexpr std::uint8_t kMaskValid = 255, kMaskInvalid = 0;

// How many pixels of a mask count.
inline std::size_t valid_count(const Image<std::uint8_t>& mask) {
    std::size_t n = 0;
    for (std::uint8_t m : mask.data) n += m == kMaskValid;
    return n;
}

// A photo as training sees it: 8-bit RGB [H, W, 3] and, when some pixels must neither train nor score
// (no source after undistortion, masked by the user, transparent), a mask [H, W, 1] of kMaskValid /
// kMaskInvalid. An empty mask: every pixel counts.
struct TargetImage {
    Image<std::uint8_t> rgb;
    Image<std::uint8_t> mask;

    std::size_t valid_pixels() const { return mask.data.empty() ? rgb.pixels() : valid_count(mask); }
};

}  // namespace radiant
