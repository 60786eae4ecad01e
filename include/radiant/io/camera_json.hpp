#pragma once
// Camera JSON (DESIGN.md §3): one object, or {"cameras": [...]}, each with width, height, fx, fy, cx, cy,
// R (3×3 rows, world→camera), t (3), optional name, model ("pinhole", "opencv", "fisheye") and distortion.
#include <string>
#include <string_view>
#include <vector>

#include "radiant/core/camera.hpp"

namespace radiant {

// Throws IoError naming the file, the camera index and the field.
std::vector<Camera> read_cameras_json(const std::string& path);
std::vector<Camera> parse_cameras_json(std::string_view text, const std::string& name);

// {"cameras": [...]}, atomic.
void write_cameras_json(const std::string& path, const std::vector<Camera>& cameras);
std::string format_cameras_json(const std::vector<Camera>& cameras);

}  // namespace radiant
