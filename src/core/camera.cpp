#include "radiant/core/camera.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "radiant/core/error.hpp"

namespace radiant {

const char* to_string(CameraModel model) {
    switch (model) {
        case CameraModel::pinhole:
            return "pinhole";
        case CameraModel::opencv:
            return "opencv";
        case CameraModel::fisheye:
            return "fisheye";
    }
    return "?";
}

void validate(const Camera& c, const std::string& what) {
    auto fail = [&](const std::string& reason) { throw Error(fmt::format("{}: {}", what, reason)); };
    if (c.width <= 0 || c.height <= 0 || c.width > 65536 || c.height > 65536)
        fail(fmt::format("image size {}x{} is not in 1..65536", c.width, c.height));
    for (double v : {c.fx, c.fy, c.cx, c.cy})
        if (!std::isfinite(v)) fail("intrinsics are not finite");
    if (!(c.fx > 0) || !(c.fy > 0))
        fail(fmt::format("focal lengths must be positive (fx {}, fy {})", c.fx, c.fy));
    for (int i = 0; i < 3; ++i) {
        if (!std::isfinite(c.t[i])) fail("translation is not finite");
        for (int j = 0; j < 3; ++j)
            if (!std::isfinite(c.R.m[i][j])) fail("rotation is not finite");
    }
    Mat3<double> rrt = c.R * transpose(c.R);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (std::abs(rrt.m[i][j] - (i == j ? 1.0 : 0.0)) > 1e-4) fail("R is not orthonormal");
    Vec3<double> r0{c.R.m[0][0], c.R.m[0][1], c.R.m[0][2]}, r1{c.R.m[1][0], c.R.m[1][1], c.R.m[1][2]},
        r2{c.R.m[2][0], c.R.m[2][1], c.R.m[2][2]};
    if (dot(cross(r0, r1), r2) < 0) fail("R is a reflection (determinant −1), not a rotation");
    std::size_t n = c.distortion.size();
    bool ok = c.model == CameraModel::pinhole  ? n == 0
              : c.model == CameraModel::opencv ? (n == 4 || n == 5 || n == 8)
                                               : n == 4;
    if (!ok)
        fail(fmt::format("a {} camera takes {} distortion coefficients, got {}", to_string(c.model),
                         c.model == CameraModel::pinhole  ? "0"
                         : c.model == CameraModel::opencv ? "4, 5 or 8"
                                                          : "4",
                         n));
    for (double v : c.distortion)
        if (!std::isfinite(v)) fail("distortion coefficients are not finite");
}

Camera look_at(Vec3<double> eye, Vec3<double> target, Vec3<double> up, double fov_y_deg, int width,
               int height) {
    Vec3<double> f = target - eye;
    if (!(length(f) > 0)) throw Error("look-at: eye and target coincide");
    f = normalize(f);
    Vec3<double> r = cross(f, up);
    if (!(length(r) > 1e-9 * length(up)))
        throw Error("look-at: the up vector is parallel to the view direction");
    r = normalize(r);
    Vec3<double> d = cross(f, r);  // image down
    if (!(fov_y_deg > 0 && fov_y_deg < 180))
        throw Error(fmt::format("look-at: fov {} is not in (0, 180)", fov_y_deg));
    Camera c;
    c.width = width;
    c.height = height;
    c.fy = 0.5 * height / std::tan(0.5 * fov_y_deg * std::numbers::pi / 180.0);
    c.fx = c.fy;
    c.cx = 0.5 * width;
    c.cy = 0.5 * height;
    for (int j = 0; j < 3; ++j) {
        c.R.m[0][j] = r[j];
        c.R.m[1][j] = d[j];
        c.R.m[2][j] = f[j];
    }
    c.t = -(c.R * eye);
    return c;
}

std::vector<Camera> orbit(Vec3<double> centre, double radius, double elevation_deg, int n, Vec3<double> up,
                          double fov_y_deg, int width, int height) {
    if (n <= 0) throw Error(fmt::format("orbit: view count {} must be positive", n));
    if (!(radius > 0)) throw Error(fmt::format("orbit: radius {} must be positive", radius));
    if (!(length(up) > 0)) throw Error("orbit: up vector is zero");
    Vec3<double> u = normalize(up);
    Vec3<double> ref = std::abs(u.x) < 0.9 ? Vec3<double>{1, 0, 0} : Vec3<double>{0, 0, 1};
    Vec3<double> h0 = normalize(ref - dot(ref, u) * u), h1 = cross(u, h0);
    double el = elevation_deg * std::numbers::pi / 180.0;
    std::vector<Camera> cams;
    for (int i = 0; i < n; ++i) {
        double th = 2.0 * std::numbers::pi * i / n;
        Vec3<double> dir = std::cos(el) * (std::cos(th) * h0 + std::sin(th) * h1) + std::sin(el) * u;
        Camera c = look_at(centre + radius * dir, centre, u, fov_y_deg, width, height);
        c.name = fmt::format("orbit_{:03d}", i);
        cams.push_back(c);
    }
    return cams;
}

}  // namespace radiant
