#pragma once
// Fly-through videos (issue 24): a path of cameras rendered on the backend and joined by ffmpeg into a
// video, or left as numbered PNGs with the command that joins them when ffmpeg is not there.
#include <string>
#include <vector>

#include "radiant/core/camera.hpp"
#include "radiant/core/render_settings.hpp"
#include "radiant/train/backend.hpp"

namespace radiant::app {

enum class FlyPath { orbit, spiral, train_cameras };
FlyPath parse_fly_path(const std::string& name);  // orbit, spiral, train-cameras; Error otherwise

// The path's cameras from a capture's cameras (and their splits): round its focus, or through its training
// cameras in order (all of them when none is marked train).
std::vector<Camera> fly_path_cameras(FlyPath path, int frames, const std::vector<Camera>& capture,
                                     const std::vector<std::string>& splits);

// Renders `cameras` into `out`, a video (.mp4, .mov, .webm, …) at `fps`. Frames go to OUT.frames/ first;
// joined, they are removed; without ffmpeg they stay, and the command to join them is printed.
void write_flythrough(Backend& backend, const std::vector<Camera>& cameras, const RenderSettings& settings,
                      const std::string& out, double fps);

// A finished run's fly-through through its training cameras (its cameras.json), drawn as it trained.
void write_run_flythrough(const std::string& run, const std::string& backend, const std::string& out,
                          int frames, double fps);

}  // namespace radiant::app
