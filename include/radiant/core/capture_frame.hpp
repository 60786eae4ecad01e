#pragma once
// Where a capture's cameras are and where they look, for views that should look like the capture: `radiant
// render --orbit` flies round the scene from the cameras' height and distance with their up, not from an
// axis the scene's coordinates happen to have (COLMAP's world is rotated arbitrarily).
#include <vector>

#include "radiant/core/camera.hpp"

namespace radiant {

// The point nearest to every camera's optical axis in the least-squares sense: where a capture looks. Axes
// that are nearly parallel (a forward-facing capture), or a point behind most cameras (cameras looking
// outwards), give the point `extent` ahead of `centre` along the mean axis instead.
Vec3<double> focus_point(const std::vector<Camera>& cameras, Vec3<double> centre, double extent);

struct CaptureFrame {
    Vec3<double> focus;      // focus_point of the cameras
    Vec3<double> up;         // the mean of the cameras' up directions (−y of each), unit
    double radius = 1;       // median distance of the cameras from the focus
    double elevation = 0;    // median angle of the cameras above the plane through the focus ⟂ up, radians
    double azimuth = 0;      // where the cameras' arc round `up` starts (radians, from `ref`)
    double span = 0;         // how far round it they reach (2π: they surround the focus)
    Vec3<double> ref, side;  // the plane ⟂ up: azimuth 0 and π/2
    double fov_y_deg = 50;   // the cameras' median vertical field of view
    int width = 0, height = 0;  // the first camera's size
};

// Throws Error for no cameras.
CaptureFrame capture_frame(const std::vector<Camera>& cameras);

// n views at the capture's radius and elevation looking at its focus, named "000", "001", …: a full circle
// starting at the first camera when the cameras surround the focus by more than half a turn, else a sweep
// across the arc they cover and back (a forward-facing capture has nothing to see from behind).
std::vector<Camera> capture_orbit(const CaptureFrame& frame, int n);

}  // namespace radiant
