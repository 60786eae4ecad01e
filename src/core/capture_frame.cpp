#include "radiant/core/capture_frame.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "radiant/core/error.hpp"

namespace radiant {
namespace {

double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    return v[v.size() / 2];
}

double det3(const double m[3][3]) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

// x with a x = b by Cramer's rule (a non-singular; det its determinant).
Vec3<double> solve3(const double a[3][3], const double b[3], double det) {
    Vec3<double> x;
    for (int k = 0; k < 3; ++k) {
        double m[3][3];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) m[i][j] = j == k ? b[i] : a[i][j];
        x[k] = det3(m) / det;
    }
    return x;
}

}  // namespace

// Solves Σ (I − d dᵀ) x = Σ (I − d dᵀ) c (d: unit optical axis, c: camera centre) by Cramer's rule.
Vec3<double> focus_point(const std::vector<Camera>& cameras, Vec3<double> centre, double extent) {
    double a[3][3]{}, b[3]{};
    Vec3<double> mean_dir{};
    for (const Camera& cam : cameras) {
        const Vec3<double> d{cam.R[2][0], cam.R[2][1], cam.R[2][2]};  // optical axis, world
        const Vec3<double> c = cam.centre();
        mean_dir += d;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                const double m = (i == j ? 1.0 : 0.0) - d[i] * d[j];
                a[i][j] += m;
                b[i] += m * c[j];
            }
    }
    const double n = double(cameras.size());
    const double det = det3(a);
    const double len = length(mean_dir);
    const Vec3<double> ahead = len > 0 ? centre + (extent / len) * mean_dir : centre;
    // det / n³ is the product of the normalised eigenvalues (each in [0, 1]): below 1e-3 the smallest is
    // tiny, the axes nearly parallel.
    if (!(det / (n * n * n) > 1e-3)) return ahead;
    const Vec3<double> x = solve3(a, b, det);
    std::size_t in_front = 0;
    for (const Camera& cam : cameras) in_front += (cam.R * x + cam.t).z > 0 ? 1 : 0;
    return 2 * in_front > cameras.size() ? x : ahead;
}

CaptureFrame capture_frame(const std::vector<Camera>& cameras) {
    if (cameras.empty()) throw Error("a capture frame needs at least one camera");
    CaptureFrame f;
    Vec3<double> centre{}, up{};
    double rr[3][3]{};  // Σ r rᵀ / n over the cameras' right vectors
    for (const Camera& c : cameras) {
        centre += c.centre();
        up += Vec3<double>{-c.R[1][0], -c.R[1][1], -c.R[1][2]};  // image y points down
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) rr[i][j] += c.R[0][i] * c.R[0][j] / double(cameras.size());
    }
    centre = (1.0 / double(cameras.size())) * centre;
    double extent = 0;
    for (const Camera& c : cameras) extent = std::max(extent, length(c.centre() - centre));
    extent = extent > 0 ? 1.1 * extent : 1.0;
    f.focus = focus_point(cameras, centre, extent);
    // Cameras rolled every which way have no common up: keep the first camera's.
    f.up = length(up) > 1e-6 * double(cameras.size())
               ? normalize(up)
               : Vec3<double>{-cameras[0].R[1][0], -cameras[0].R[1][1], -cameras[0].R[1][2]};
    // The mean up leans towards where cameras looking down crowd. A camera held level has a level right
    // vector, so world up is the direction the right vectors leave out: the mean up, with what lies along
    // the right vectors filtered away ((M + εI)⁻¹ε damps each eigendirection by ε / (λ + ε)). When the
    // right vectors all agree (a forward-facing rig) the mean up already is perpendicular to them and stays.
    for (int iter = 0; iter < 3; ++iter) {
        double a[3][3], b[3];
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) a[i][j] = rr[i][j] + (i == j ? 1e-3 : 0.0);
            b[i] = f.up[i];
        }
        const Vec3<double> x = solve3(a, b, det3(a));
        if (!(length(x) > 0) || !std::isfinite(length(x))) break;
        f.up = normalize(x);
    }
    const Vec3<double> any = std::abs(f.up.x) < 0.9 ? Vec3<double>{1, 0, 0} : Vec3<double>{0, 0, 1};
    f.ref = normalize(any - dot(any, f.up) * f.up);
    f.side = cross(f.up, f.ref);

    std::vector<double> dist, elev, fov, az;
    for (const Camera& c : cameras) {
        const Vec3<double> v = c.centre() - f.focus;
        const double r = length(v);
        if (!(r > 0)) continue;
        dist.push_back(r);
        elev.push_back(std::asin(std::clamp(dot(v, f.up) / r, -1.0, 1.0)));
        az.push_back(std::atan2(dot(v, f.side), dot(v, f.ref)));
        fov.push_back(2 * std::atan(0.5 * c.height / c.fy) * 180 / std::numbers::pi);
    }
    if (dist.empty()) throw Error("every camera sits on the capture's focus: no orbit to fly");
    f.radius = median(dist);
    f.elevation = median(elev);
    f.fov_y_deg = median(fov);
    f.width = cameras[0].width;
    f.height = cameras[0].height;
    // The arc the cameras cover: the circle minus its largest gap between neighbouring azimuths.
    const double first = az[0];
    std::sort(az.begin(), az.end());
    double gap = 2 * std::numbers::pi - (az.back() - az.front()), gap_end = az.front();
    for (std::size_t i = 1; i < az.size(); ++i)
        if (az[i] - az[i - 1] > gap) {
            gap = az[i] - az[i - 1];
            gap_end = az[i];
        }
    f.span = 2 * std::numbers::pi - gap;
    f.azimuth = f.span > std::numbers::pi ? first : gap_end;
    return f;
}

std::vector<Camera> capture_orbit(const CaptureFrame& f, int n) {
    if (n <= 0) throw Error(fmt::format("orbit: view count {} must be positive", n));
    const bool circle = f.span > std::numbers::pi;
    std::vector<Camera> cams;
    for (int i = 0; i < n; ++i) {
        const double s = double(i) / double(n);
        const double az = circle ? f.azimuth + 2 * std::numbers::pi * s
                                 : f.azimuth + 0.5 * f.span * (1 - std::cos(2 * std::numbers::pi * s));
        const Vec3<double> dir = std::cos(f.elevation) * (std::cos(az) * f.ref + std::sin(az) * f.side) +
                                 std::sin(f.elevation) * f.up;
        Camera c = look_at(f.focus + f.radius * dir, f.focus, f.up, f.fov_y_deg, f.width, f.height);
        c.name = fmt::format("{:03d}", i);
        cams.push_back(c);
    }
    return cams;
}

}  // namespace radiant
