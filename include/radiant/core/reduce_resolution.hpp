#pragma once
// Training at a fraction of the resolution (the resolution schedule, DashGaussian): an image reduced by an
// integer factor f holds the mean of each f×f block of pixels (a last partial row or column of blocks is
// dropped), and its camera is the original with every intrinsic divided by f — block (x, y)'s centre,
// f·(x + ½), is where the reduced camera puts pixel centre x + ½. Both backends use these rules.
#include <cstdint>

#include "radiant/core/camera.hpp"
#include "radiant/core/hd.hpp"
#include "radiant/core/image.hpp"

namespace radiant {

RADIANT_HD int reduced_size(int size, int factor) {
    return size / factor > 1 ? size / factor : 1;
}

// The camera of an image reduced by `factor` (≥ 1).
Camera reduced_camera(const Camera& camera, int factor);

// Channel c of pixel (x, y) of the reduced image: the rounded mean of its block. `src`: [H, W, channels].
RADIANT_HD std::uint8_t block_mean(const std::uint8_t* src, int width, int channels, int x, int y, int factor,
                                   int c) {
    unsigned sum = 0;
    for (int dy = 0; dy < factor; ++dy) {
        const std::uint8_t* row =
            src +
            (std::size_t(y * factor + dy) * std::size_t(width) + std::size_t(x * factor)) *
                std::size_t(channels) +
            std::size_t(c);
        for (int dx = 0; dx < factor; ++dx) sum += row[std::size_t(dx) * std::size_t(channels)];
    }
    const unsigned n = unsigned(factor * factor);
    return std::uint8_t((sum + n / 2) / n);
}

// A pixel of the reduced mask counts when every pixel of its block does (a block with a pixel that must not
// train would otherwise train on it).
RADIANT_HD std::uint8_t block_mask(const std::uint8_t* mask, int width, int x, int y, int factor) {
    for (int dy = 0; dy < factor; ++dy)
        for (int dx = 0; dx < factor; ++dx)
            if (mask[std::size_t(y * factor + dy) * std::size_t(width) + std::size_t(x * factor + dx)] !=
                kMaskValid)
                return kMaskInvalid;
    return kMaskValid;
}

// A training image reduced by `factor` (its mask too, when it has one).
TargetImage reduced_image(const TargetImage& image, int factor);

}  // namespace radiant
