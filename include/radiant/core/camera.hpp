#pragma once
// Cameras (DESIGN.md §3): world→camera R, t (x_cam = R·x_world + t), OpenCV frame (x right, y down,
// z forward), intrinsics in pixels with pixel centres at (x + 0.5, y + 0.5), optional lens distortion.
#include <string>
#include <vector>

#include "radiant/core/vec.hpp"

namespace radiant {

enum class CameraModel {
    pinhole,  // no distortion
    opencv,   // radial-tangential: k1 k2 p1 p2 [k3 [k4 k5 k6]]
    fisheye,  // equidistant: k1 k2 k3 k4
};

const char* to_string(CameraModel model);

// Host-side description; double precision so the double oracle is not limited by the camera.
struct Camera {
    std::string name;
    int width = 0, height = 0;
    double fx = 0, fy = 0, cx = 0, cy = 0;
    Mat3<double> R = Mat3<double>::identity();
    Vec3<double> t{};
    CameraModel model = CameraModel::pinhole;
    std::vector<double> distortion;

    Vec3<double> centre() const { return -(transpose(R) * t); }
};

// Throws Error when a camera cannot be rendered: non-positive size or focal length, non-finite values,
// R not a rotation, or a distortion list of the wrong length for its model. `what` prefixes the message.
void validate(const Camera& camera, const std::string& what);

// A camera at `eye` looking at `target`; `up` is the world direction that appears up in the image.
// fov_y_deg is the vertical field of view.
Camera look_at(Vec3<double> eye, Vec3<double> target, Vec3<double> up, double fov_y_deg, int width,
               int height);

// n cameras on a circle of `radius` around `centre` in the plane orthogonal to `up`, raised by
// `elevation_deg`, all looking at `centre`.
std::vector<Camera> orbit(Vec3<double> centre, double radius, double elevation_deg, int n, Vec3<double> up,
                          double fov_y_deg, int width, int height);

// The pinhole part of a camera in the kernels' scalar type: plain data, copied by value into kernels.
template <class T>
struct PinholeParams {
    Mat3<T> R;
    Vec3<T> t;
    T fx, fy, cx, cy;
    int width, height;
};

template <class T>
PinholeParams<T> pinhole_params(const Camera& c) {
    return {cast<T>(c.R), cast<T>(c.t), T(c.fx), T(c.fy), T(c.cx), T(c.cy), c.width, c.height};
}

template <class T>
RADIANT_HD Vec3<T> world_to_camera(const PinholeParams<T>& cam, Vec3<T> p) {
    return cam.R * p + cam.t;
}

// Perspective projection of a camera-frame point to pixel coordinates.
template <class T>
RADIANT_HD Vec2<T> project_pinhole(const PinholeParams<T>& cam, Vec3<T> p_cam) {
    T inv_z = T(1) / p_cam.z;
    return {cam.fx * p_cam.x * inv_z + cam.cx, cam.fy * p_cam.y * inv_z + cam.cy};
}

}  // namespace radiant
