#pragma once
// A posed-image dataset as the trainer sees it, whatever it was stored as: COLMAP (binary or text),
// NeRF-synthetic or instant-ngp transforms.json. Opening reads metadata and image headers only;
// load_images decodes (in parallel), downscales, undistorts and caches 8-bit RGB.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "radiant/core/camera.hpp"
#include "radiant/core/image.hpp"

namespace radiant {

struct DatasetOptions {
    int downscale = 1;      // images_N for COLMAP when present, else an area-filtered resize
    bool eval = false;      // hold out a test split; off: every image trains
    int test_every = 8;     // test split = every Nth image in name order (index % N == 0)
    bool undistort = true;  // `ewa`: resample distorted cameras to an ideal pinhole
    std::array<double, 3> background{0, 0, 0};  // composited under RGBA images
};

struct DatasetView {
    std::string name;  // image file name
    std::string image_path;
    Camera camera;                            // at the loaded resolution; pinhole when undistorted
    Camera source_camera;                     // as stored (distorted), at the loaded resolution
    int source_width = 0, source_height = 0;  // size of the file on disk
    bool test = false;
};

struct Dataset {
    std::string root;
    std::string format;  // "colmap (binary)", "colmap (text)", "nerf-synthetic", "instant-ngp"
    DatasetOptions options;
    std::vector<DatasetView> views;   // sorted by name
    std::vector<Vec3<float>> points;  // initialisation points (COLMAP points3D), may be empty
    std::vector<std::array<std::uint8_t, 3>> point_colours;
    Vec3<double> centre{};  // mean camera centre
    double extent = 1.0;    // radius of the camera centres' bounding sphere × 1.1 (Inria 3DGS)
    Vec3<double> focus{};   // nearest point to all optical axes: where random initialisation centres
    std::vector<std::string> warnings;

    std::size_t train_count() const;
    std::size_t test_count() const;
};

// Throws IoError naming the file and the problem.
Dataset open_dataset(const std::string& dir, const DatasetOptions& options = {});

// Decoded RGB images, one per view, in parallel with a progress line. Throws IoError for a file that is
// not an image or whose size disagrees with its camera, and OutOfMemory (suggesting a downscale) before
// decoding anything when the set would not fit in `memory_limit` bytes (0: the host's available memory).
std::vector<Image<std::uint8_t>> load_images(const Dataset& dataset, std::size_t memory_limit = 0);

// The point nearest to every camera's optical axis in the least-squares sense: where a capture looks. Axes
// that are nearly parallel (a forward-facing capture), or a point behind most cameras (cameras looking
// outwards), give the point `extent` ahead of `centre` along the mean axis instead.
Vec3<double> focus_point(const std::vector<DatasetView>& views, Vec3<double> centre, double extent);

// `radiant info DATA_DIR`'s text.
std::string describe(const Dataset& dataset);

}  // namespace radiant
