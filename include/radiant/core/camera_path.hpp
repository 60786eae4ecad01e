#pragma once
// Camera paths for fly-through videos (issue 24): a spiral round the capture, and a smooth path through its
// own cameras.
#include <vector>

#include "radiant/core/camera.hpp"
#include "radiant/core/capture_frame.hpp"

namespace radiant {

// n views round the capture's focus, rising and sinking twice by a third of the cameras' elevation (at
// least 10°) and drawing in and out by a tenth of the radius; a capture that does not surround its focus
// (forward-facing) gets a spiral in front instead: two small circles across the arc's middle, looking at
// the focus. Named "000", "001", …
std::vector<Camera> capture_spiral(const CaptureFrame& frame, int n);

// n views along a path through `keys` in their order: centres on a Catmull–Rom spline through the keys'
// centres, rotations on the same spline through their quaternions (normalised; neighbouring keys taken on
// one hemisphere), so speed and turning change smoothly rather than at each key. The intrinsics and size
// are the first key's, as an ideal pinhole (a new view has no lens). Throws Error for fewer than two keys.
std::vector<Camera> interpolate_cameras(const std::vector<Camera>& keys, int n);

// The unit quaternion (w, x, y, z) of a rotation matrix, w ≥ 0; and back.
Vec4<double> rotation_to_quat(const Mat3<double>& r);
Mat3<double> quat_to_rotation(Vec4<double> q);

}  // namespace radiant
