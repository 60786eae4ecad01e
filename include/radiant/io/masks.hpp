#pragma once
// Pixel masks for training: which pixels of a photo may train and score. They come from mask files (a
// `masks/` folder beside `images/`, `--masks DIR`, nerfstudio's per-frame `mask_path`), from the alpha
// channel of RGBA photos, and from undistortion (io/undistort.hpp). All become [H, W, 1] images of
// kMaskValid / kMaskInvalid (core/image.hpp).
#include <cstdint>
#include <string>

#include "radiant/core/image.hpp"

namespace radiant {

// A mask file (PNG or JPEG, any channel count) as kMaskValid / kMaskInvalid: black (0) excludes a pixel,
// white keeps it, as nerfstudio and LichtFeld read masks. Gray levels split at 128 (JPEG masks are never
// exactly 0 or 255), except in a mask holding only 0 and 1, which is read as 0 = exclude, 1 = keep. RGB
// masks use the mean of their channels; an alpha channel is ignored. Throws IoError naming the file.
Image<std::uint8_t> read_mask(const std::string& path);
Image<std::uint8_t> mask_from_values(const Image<std::uint8_t>& image);

// The alpha channel of a gray+alpha or RGBA image as a mask (alpha ≥ 128 keeps the pixel); an empty
// image when it has no alpha channel.
Image<std::uint8_t> mask_from_alpha(const Image<std::uint8_t>& image);

// The mask at another size: an output pixel stays valid only where everything it covers is valid, so no
// pixel trains on content that was masked out.
Image<std::uint8_t> resize_mask(const Image<std::uint8_t>& mask, int width, int height);

// Valid where both are; an empty mask is all valid.
Image<std::uint8_t> intersect_masks(const Image<std::uint8_t>& a, const Image<std::uint8_t>& b);

// Whether any pixel is excluded.
bool excludes_any(const Image<std::uint8_t>& mask);

// The mask file for image `image_name` (its path relative to the image folder) in `mask_dir`: the same
// relative path, the same path + ".png" (COLMAP's convention), or the same stem with another image
// extension. Empty when there is none.
std::string find_mask(const std::string& mask_dir, const std::string& image_name);

}  // namespace radiant
