#pragma once
// COLMAP sparse models, binary (.bin) and text (.txt): cameras, images (registered poses) and points3D.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "radiant/core/camera.hpp"

namespace radiant {

struct ColmapCamera {
    std::uint32_t id = 0;
    std::string model;  // COLMAP's name, e.g. "PINHOLE"
    int width = 0, height = 0;
    std::vector<double> params;
};

struct ColmapImage {
    std::uint32_t id = 0;
    Vec4<double> qvec;  // world→camera rotation, w x y z
    Vec3<double> tvec;  // world→camera translation
    std::uint32_t camera_id = 0;
    std::string name;
};

struct ColmapPoint {
    Vec3<double> xyz;
    std::array<std::uint8_t, 3> rgb{};
    double error = 0;
};

struct ColmapModel {
    std::string dir;  // the folder holding cameras/images/points3D
    bool binary = true;
    std::vector<ColmapCamera> cameras;
    std::vector<ColmapImage> images;
    std::vector<ColmapPoint> points;
};

// The folder holding the model: DIR/sparse/0, DIR/sparse, DIR or DIR/distorted/sparse/0 (Inria's
// convert.py before undistortion), the first that has cameras.bin or cameras.txt. Empty when none has.
std::string find_colmap_model(const std::string& dir);

// Reads the model in `model_dir` (binary preferred when both exist). Throws IoError naming the file.
ColmapModel read_colmap_model(const std::string& model_dir);
// Single files, for tests and tools.
std::vector<ColmapCamera> parse_colmap_cameras_bin(const std::string& bytes, const std::string& name);
std::vector<ColmapImage> parse_colmap_images_bin(const std::string& bytes, const std::string& name);
std::vector<ColmapPoint> parse_colmap_points_bin(const std::string& bytes, const std::string& name);
std::vector<ColmapCamera> parse_colmap_cameras_txt(const std::string& text, const std::string& name);
std::vector<ColmapImage> parse_colmap_images_txt(const std::string& text, const std::string& name);
std::vector<ColmapPoint> parse_colmap_points_txt(const std::string& text, const std::string& name);

// radiant camera (intrinsics and distortion) of a COLMAP camera: SIMPLE_PINHOLE, PINHOLE, SIMPLE_RADIAL,
// RADIAL, OPENCV, FULL_OPENCV, OPENCV_FISHEYE, SIMPLE_RADIAL_FISHEYE, RADIAL_FISHEYE. Throws IoError
// (naming `where`) for other models or a wrong parameter count.
Camera colmap_intrinsics(const ColmapCamera& cam, const std::string& where);

// World→camera pose of an image as R, t.
Mat3<double> rotation_from_qvec(Vec4<double> q);

}  // namespace radiant
