#pragma once
// A posed-image dataset as the trainer sees it, whatever it was stored as: COLMAP (binary or text; Inria's
// convert.py layouts), NeRF-synthetic, instant-ngp or nerfstudio transforms.json. Opening reads metadata
// and image headers only and finds every mask; load_images decodes (in parallel), downscales, undistorts
// and caches 8-bit RGB with the masks of the pixels that must neither train nor score.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "radiant/core/camera.hpp"
#include "radiant/core/capture_frame.hpp"
#include "radiant/core/image.hpp"
#include "radiant/io/undistort.hpp"

namespace radiant {

// How the `ewa` model sees distorted photos (io/undistort.hpp): not at all (`ray` traces the lens), or
// undistorted to a pinhole with the pixels that have no source masked (`mask`) or cropped away (`crop`).
enum class Undistort { none, mask, crop };
const char* to_string(Undistort u);

// What the alpha channel of RGBA photos means: a mask (transparent pixels neither train nor score, the
// colour is used as it is) or coverage to composite over the background (NeRF-synthetic's renders).
// `automatic`: composite for NeRF-synthetic, mask for everything else.
enum class AlphaUse { automatic, composite, mask };
const char* to_string(AlphaUse a);

struct DatasetOptions {
    // 1/N of the full size (COLMAP: the images_N folder when present, else an area-filtered resize);
    // 0: full size unless the longer side of the largest image exceeds max_side, which then is scaled
    // down to max_side (Inria 3DGS's rule: full-size phone photos exhaust memory and time).
    int downscale = 0;
    int max_side = 1600;
    bool eval = false;   // hold out a test split; off: every image trains
    int test_every = 8;  // test split = every Nth image in name order (index % N == 0)
    Undistort undistort = Undistort::crop;
    Resample resample = Resample::bilinear;  // how undistortion samples the photos (io/undistort.hpp)
    std::string images;  // image folder, relative to the dataset or absolute; empty: the layout's own
    std::string masks;   // mask folder, likewise; empty: DIR/masks when it exists
    AlphaUse alpha = AlphaUse::automatic;
    std::array<double, 3> background{0, 0, 0};  // composited under RGBA images
};

struct DatasetView {
    std::string name;  // image name: its path relative to the image folder
    std::string image_path;
    std::string mask_path;  // empty: no mask file
    Camera camera;          // what training renders: at the loaded size, a pinhole when undistorted
    Camera source_camera;   // as stored (distorted), at the loaded resolution
    int source_width = 0, source_height = 0;  // size of the file on disk
    bool test = false;
};

struct Dataset {
    std::string root;
    std::string format;  // "colmap (binary)", "colmap (text)", "nerf-synthetic", "instant-ngp"
    DatasetOptions options;
    std::string image_dir;            // where the images were read ("" for transforms.json: per frame)
    std::string mask_dir;             // where the masks were found ("" when none or per frame)
    AlphaUse alpha = AlphaUse::mask;  // options.alpha resolved for this dataset
    double scale = 1;                 // loaded size / stored size (< 1 when downscaled)
    std::vector<DatasetView> views;   // sorted by name
    std::vector<Vec3<float>> points;  // initialisation points (COLMAP points3D), may be empty
    std::vector<std::array<std::uint8_t, 3>> point_colours;
    Vec3<double> centre{};  // mean camera centre
    double extent = 1.0;    // radius of the camera centres' bounding sphere × 1.1 (Inria 3DGS)
    Vec3<double> focus{};   // nearest point to all optical axes: where random initialisation centres
    std::vector<std::string> warnings;
    std::vector<std::string> notes;  // what was decided for the user (automatic downscale, layout)

    std::size_t train_count() const;
    std::size_t test_count() const;
    // Each view's camera as training renders it, named after its image, and each view's split ("train" or
    // "test"): what a run's cameras.json holds.
    std::vector<Camera> named_cameras() const;
    std::vector<std::string> splits() const;
};

// Throws IoError naming the file and the problem (a missing mask among them).
Dataset open_dataset(const std::string& dir, const DatasetOptions& options = {});

// Decoded images with their masks, one per view, in parallel with a progress line. Throws IoError for a
// file that is not an image, whose size disagrees with its camera, a mask of the wrong size or one that
// excludes every pixel, and OutOfMemory (suggesting a downscale) before decoding anything when the set
// would not fit in `memory_limit` bytes (0: the host's available memory). When `cancelled` returns true
// (asked before each image), the images left are skipped and Interrupted is thrown.
std::vector<TargetImage> load_images(const Dataset& dataset, std::size_t memory_limit = 0,
                                     const std::function<bool()>& cancelled = {});

// `radiant info DATA_DIR`'s text: cameras summarised in a few lines however many there are.
std::string describe(const Dataset& dataset);

}  // namespace radiant
