#include "radiant/core/camera_path.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "radiant/core/error.hpp"

namespace radiant {

Vec4<double> rotation_to_quat(const Mat3<double>& r) {
    // Shepperd's method: from the largest of w², x², y², z², for precision near any angle.
    const double tr = r.m[0][0] + r.m[1][1] + r.m[2][2];
    Vec4<double> q;
    if (tr >= r.m[0][0] && tr >= r.m[1][1] && tr >= r.m[2][2]) {
        const double s = 2 * std::sqrt(std::max(1e-300, 1 + tr));
        q = {0.25 * s, (r.m[2][1] - r.m[1][2]) / s, (r.m[0][2] - r.m[2][0]) / s, (r.m[1][0] - r.m[0][1]) / s};
    } else if (r.m[0][0] >= r.m[1][1] && r.m[0][0] >= r.m[2][2]) {
        const double s = 2 * std::sqrt(std::max(1e-300, 1 + r.m[0][0] - r.m[1][1] - r.m[2][2]));
        q = {(r.m[2][1] - r.m[1][2]) / s, 0.25 * s, (r.m[0][1] + r.m[1][0]) / s, (r.m[0][2] + r.m[2][0]) / s};
    } else if (r.m[1][1] >= r.m[2][2]) {
        const double s = 2 * std::sqrt(std::max(1e-300, 1 + r.m[1][1] - r.m[0][0] - r.m[2][2]));
        q = {(r.m[0][2] - r.m[2][0]) / s, (r.m[0][1] + r.m[1][0]) / s, 0.25 * s, (r.m[1][2] + r.m[2][1]) / s};
    } else {
        const double s = 2 * std::sqrt(std::max(1e-300, 1 + r.m[2][2] - r.m[0][0] - r.m[1][1]));
        q = {(r.m[1][0] - r.m[0][1]) / s, (r.m[0][2] + r.m[2][0]) / s, (r.m[1][2] + r.m[2][1]) / s, 0.25 * s};
    }
    const double n = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    q = {q.x / n, q.y / n, q.z / n, q.w / n};
    return q.x < 0 ? Vec4<double>{-q.x, -q.y, -q.z, -q.w} : q;
}

Mat3<double> quat_to_rotation(Vec4<double> q) {
    const double n = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    const double w = q.x / n, x = q.y / n, y = q.z / n, z = q.w / n;
    Mat3<double> r;
    r.m[0][0] = 1 - 2 * (y * y + z * z);
    r.m[0][1] = 2 * (x * y - w * z);
    r.m[0][2] = 2 * (x * z + w * y);
    r.m[1][0] = 2 * (x * y + w * z);
    r.m[1][1] = 1 - 2 * (x * x + z * z);
    r.m[1][2] = 2 * (y * z - w * x);
    r.m[2][0] = 2 * (x * z - w * y);
    r.m[2][1] = 2 * (y * z + w * x);
    r.m[2][2] = 1 - 2 * (x * x + y * y);
    return r;
}

std::vector<Camera> capture_spiral(const CaptureFrame& f, int n) {
    if (n <= 0) throw Error(fmt::format("spiral: frame count {} must be positive", n));
    constexpr double kPi = std::numbers::pi;
    const bool circle = f.span > kPi;
    const double lift = std::max(10 * kPi / 180, std::abs(f.elevation) / 3);
    std::vector<Camera> cams;
    for (int i = 0; i < n; ++i) {
        const double s = double(i) / double(n);
        Vec3<double> eye;
        if (circle) {
            const double az = f.azimuth + 2 * kPi * s, el = f.elevation + lift * std::sin(4 * kPi * s);
            const double radius = f.radius * (1 + 0.1 * std::cos(2 * kPi * s));
            eye = f.focus + radius * (std::cos(el) * (std::cos(az) * f.ref + std::sin(az) * f.side) +
                                      std::sin(el) * f.up);
        } else {
            const double az = f.azimuth + 0.5 * f.span;
            const Vec3<double> dir = std::cos(f.elevation) * (std::cos(az) * f.ref + std::sin(az) * f.side) +
                                     std::sin(f.elevation) * f.up;
            const Vec3<double> across = normalize(cross(f.up, dir)), rise = normalize(cross(dir, across));
            const double a = 4 * kPi * s, r = 0.1 * f.radius;
            eye = f.focus + f.radius * dir + r * std::cos(a) * across + r * std::sin(a) * rise;
        }
        Camera c = look_at(eye, f.focus, f.up, f.fov_y_deg, f.width, f.height);
        c.name = fmt::format("{:03d}", i);
        cams.push_back(c);
    }
    return cams;
}

namespace {

double catmull_rom(double p0, double p1, double p2, double p3, double t) {
    const double t2 = t * t, t3 = t2 * t;
    return 0.5 * ((2 * p1) + t * (p2 - p0) + t2 * (2 * p0 - 5 * p1 + 4 * p2 - p3) +
                  t3 * (3 * p1 - 3 * p2 + p3 - p0));
}
Vec3<double> catmull_rom(Vec3<double> p0, Vec3<double> p1, Vec3<double> p2, Vec3<double> p3, double t) {
    return {catmull_rom(p0.x, p1.x, p2.x, p3.x, t), catmull_rom(p0.y, p1.y, p2.y, p3.y, t),
            catmull_rom(p0.z, p1.z, p2.z, p3.z, t)};
}
Vec4<double> catmull_rom(Vec4<double> p0, Vec4<double> p1, Vec4<double> p2, Vec4<double> p3, double t) {
    return {catmull_rom(p0.x, p1.x, p2.x, p3.x, t), catmull_rom(p0.y, p1.y, p2.y, p3.y, t),
            catmull_rom(p0.z, p1.z, p2.z, p3.z, t), catmull_rom(p0.w, p1.w, p2.w, p3.w, t)};
}

double dot4(Vec4<double> a, Vec4<double> b) {
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

}  // namespace

std::vector<Camera> interpolate_cameras(const std::vector<Camera>& keys, int n) {
    if (keys.size() < 2)
        throw Error(fmt::format("a path through cameras needs two at least, got {}", keys.size()));
    if (n <= 0) throw Error(fmt::format("camera path: frame count {} must be positive", n));
    const std::size_t k = keys.size();
    std::vector<Vec3<double>> centres(k);
    std::vector<Vec4<double>> quats(k);
    for (std::size_t i = 0; i < k; ++i) {
        centres[i] = keys[i].centre();
        quats[i] = rotation_to_quat(keys[i].R);
        if (i > 0 && dot4(quats[i], quats[i - 1]) < 0)
            quats[i] = {-quats[i].x, -quats[i].y, -quats[i].z, -quats[i].w};
    }
    // The ends repeat themselves: the path starts and stops at the first and last key.
    auto centre = [&](long i) { return centres[std::size_t(std::clamp(i, 0L, long(k) - 1))]; };
    auto quat = [&](long i) { return quats[std::size_t(std::clamp(i, 0L, long(k) - 1))]; };
    std::vector<Camera> cams;
    for (int f = 0; f < n; ++f) {
        const double u = n == 1 ? 0 : double(f) * double(k - 1) / double(n - 1);
        const long seg = std::min(long(u), long(k) - 2);
        const double t = u - double(seg);
        Camera c = keys[0];
        c.model = CameraModel::pinhole;
        c.distortion.clear();
        c.R = quat_to_rotation(catmull_rom(quat(seg - 1), quat(seg), quat(seg + 1), quat(seg + 2), t));
        c.t = -(c.R * catmull_rom(centre(seg - 1), centre(seg), centre(seg + 1), centre(seg + 2), t));
        c.name = fmt::format("{:03d}", f);
        cams.push_back(c);
    }
    return cams;
}

}  // namespace radiant
