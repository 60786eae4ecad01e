#pragma once
// Undistortion of images to an ideal pinhole (for the `ewa` model), computed once per camera as a remap
// table: for each output pixel, where to sample the distorted source. The pinhole keeps the source's
// intrinsics and size; output pixels whose source lies outside the image are marked invalid (and black).
#include <cstdint>
#include <vector>

#include "radiant/core/camera.hpp"
#include "radiant/core/image.hpp"

namespace radiant {

struct UndistortMap {
    Camera pinhole;                   // the ideal camera of the output
    std::vector<float> source_xy;     // [H, W, 2] continuous source pixel coordinates (centres at +0.5)
    std::vector<std::uint8_t> valid;  // [H, W]
    std::size_t invalid_pixels = 0;
};

UndistortMap make_undistort_map(const Camera& distorted);

// Bilinear resampling through the map; `image` must have the distorted camera's size.
Image<std::uint8_t> undistort_image(const UndistortMap& map, const Image<std::uint8_t>& image);

}  // namespace radiant
