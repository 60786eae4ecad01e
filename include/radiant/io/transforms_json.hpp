#pragma once
// transforms.json datasets: the NeRF-synthetic layout (transforms_{train,test,val}.json, camera_angle_x,
// RGBA PNGs) and the instant-ngp / nerfstudio layout (one transforms.json with fl_x fl_y cx cy w h,
// distortion k1 k2 p1 p2 [k3], or k1..k4 with nerfstudio's "camera_model": "OPENCV_FISHEYE", per-frame
// overrides, nerfstudio's per-frame "mask_path" and "ply_file_path" initial points). Poses are OpenGL
// camera-to-world (x right, y up, z back) and are converted to radiant's OpenCV world→camera here, in one
// place (opengl_c2w_to_camera).
#include <string>
#include <vector>

#include "radiant/core/camera.hpp"

namespace radiant {

struct TransformsFrame {
    std::string image_path;     // resolved, absolute or relative to the process
    std::string name;           // file name, for ordering and reports
    Camera camera;              // width/height 0 when the file does not say (read from the image)
    double camera_angle_x = 0;  // NeRF-synthetic: focal from the image width
    std::string split;          // "train", "test", "val" or "" (instant-ngp)
    std::string mask_path;      // nerfstudio's "mask_path", resolved; empty when the frame has none
};

struct TransformsDataset {
    std::string layout;  // "nerf-synthetic" or "instant-ngp"
    std::vector<TransformsFrame> frames;
    std::vector<std::string> warnings;  // frames skipped (missing images)
    std::string points_path;            // nerfstudio's "ply_file_path", resolved; empty when absent
};

// Detects the layout in `dir`; throws IoError naming the JSON file for malformed content. With image_dir,
// each frame's image is the file of the same name there instead of its file_path.
TransformsDataset read_transforms_dataset(const std::string& dir, const std::string& image_dir = "");

// OpenGL camera-to-world 3×4 (rows) → OpenCV world→camera R, t.
void opengl_c2w_to_camera(const double c2w[3][4], Camera& camera);

}  // namespace radiant
