#pragma once
// Camera JSON (DESIGN.md §3): one object, or {"cameras": [...]}, each with width, height, fx, fy, cx, cy,
// R (3×3 rows, world→camera), t (3), optional name, model ("pinhole", "opencv", "fisheye") and distortion,
// and an optional "split" ("train" or "test": which part of a training run's dataset the view was).
#include <string>
#include <string_view>
#include <vector>

#include "radiant/core/camera.hpp"

namespace radiant {

// Throws IoError naming the file, the camera index and the field.
// `splits`, when given, gets each camera's split ("" where it has none).
std::vector<Camera> read_cameras_json(const std::string& path, std::vector<std::string>* splits = nullptr);
std::vector<Camera> parse_cameras_json(std::string_view text, const std::string& name,
                                       std::vector<std::string>* splits = nullptr);

// {"cameras": [...]}, atomic; splits[i], when there and not empty, is camera i's "split".
void write_cameras_json(const std::string& path, const std::vector<Camera>& cameras,
                        const std::vector<std::string>& splits = {});
std::string format_cameras_json(const std::vector<Camera>& cameras,
                                const std::vector<std::string>& splits = {});

}  // namespace radiant
