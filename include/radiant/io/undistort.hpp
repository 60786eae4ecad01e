#pragma once
// Undistortion of images to an ideal pinhole (for the `ewa` model), computed once per camera as a remap
// table: for each output pixel, where to sample the distorted source. Output pixels whose source lies
// outside the photo have no source: they are marked invalid, and training neither fits nor scores them.
//
// Two choices of output camera (`--undistort`):
//   mask  the source's own intrinsics and size: every pixel the photo saw is kept, the border pixels the
//         lens did not see are masked out;
//   crop  OpenCV's getOptimalNewCameraMatrix(K, D, size, alpha = 0), as gsplat's COLMAP parser uses: same
//         size, focal length and principal point chosen so the largest rectangle of valid pixels fills the
//         image (pixels outside it, seen by the lens, are dropped).
#include <cstdint>
#include <string>
#include <vector>

#include "radiant/core/camera.hpp"
#include "radiant/core/image.hpp"

namespace radiant {

// How a remapped pixel is sampled from the photo. Bilinear is what OpenCV's remap (gsplat), COLMAP's and
// Inria's undistorters use, so targets and scores compare with theirs; bicubic (Keys, a = −0.5) keeps more
// of the photo's detail, and the blur of the targets is what a model learns (bench/RESULTS.md: closer to
// the truth, but lower PSNR against its own sharper targets).
enum class Resample { bilinear, bicubic };
const char* to_string(Resample r);

struct UndistortMap {
    Camera pinhole;                           // the ideal camera of the output
    int source_width = 0, source_height = 0;  // the distorted photos' size
    std::vector<float> source_xy;     // [H, W, 2] continuous source pixel coordinates (centres at +0.5)
    std::vector<std::uint8_t> valid;  // [H, W]
    std::size_t invalid_pixels = 0;
};

// A camera's size, intrinsics, model and coefficients (not its pose): what undistortion depends on, as a
// map key for the work done once per lens.
std::vector<double> lens_key(const Camera& camera);

// `pinhole` (no distortion; any intrinsics and size) sampled from photos taken by `distorted`.
UndistortMap make_undistort_map(const Camera& distorted, const Camera& pinhole);
// The pinhole with the distorted camera's own intrinsics and size.
UndistortMap make_undistort_map(const Camera& distorted);

// The pinhole camera of `--undistort crop`: `distorted`'s size, with fx, fy, cx, cy mapping the largest
// rectangle inside the undistorted image border onto the image, corner pixel centres to corner pixel
// centres. The border is sampled at nine points an edge as OpenCV does, so the rectangle may clip a
// sliver of pixels without a source between samples: those stay masked (as in `mask`). Throws Error, naming
// `what`, for a lens whose border cannot be undistorted to a pinhole (a fisheye of 180° or more).
Camera crop_camera(const Camera& distorted, const std::string& what);

// Resampling through the map; `image` must have the distorted camera's size.
Image<std::uint8_t> undistort_image(const UndistortMap& map, const Image<std::uint8_t>& image,
                                    Resample resample = Resample::bilinear);

// The output's mask [H, W, 1]: kMaskValid where the source lies inside the photo and every source pixel
// the sample reads (with non-zero weight) is valid in `source_mask` (the distorted camera's size; empty:
// all valid).
Image<std::uint8_t> undistort_mask(const UndistortMap& map, const Image<std::uint8_t>& source_mask,
                                   Resample resample = Resample::bilinear);

}  // namespace radiant
