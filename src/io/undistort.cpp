#include "radiant/io/undistort.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "radiant/core/distortion.hpp"
#include "radiant/core/error.hpp"

namespace radiant {
namespace {

// The 4×4 taps of a continuous source position (pixel centres at +0.5), clamped to the image, and their
// weights: bilinear (the outer taps weigh 0), or Keys' cubic convolution (a = −0.5, Catmull-Rom).
struct Taps {
    int x[4], y[4];
    double wx[4], wy[4];
};

double kernel_weight(double t, Resample r) {
    t = std::abs(t);
    if (r == Resample::bilinear) return t < 1 ? 1 - t : 0;
    if (t < 1) return (1.5 * t - 2.5) * t * t + 1;
    if (t < 2) return ((-0.5 * t + 2.5) * t - 4) * t + 2;
    return 0;
}

Taps taps(float sx, float sy, int w, int h, Resample r) {
    const double gx = double(sx) - 0.5, gy = double(sy) - 0.5;  // sample grid: pixel centres at integers
    const int x0 = int(std::floor(gx)), y0 = int(std::floor(gy));
    Taps t;
    for (int k = 0; k < 4; ++k) {
        t.x[k] = std::clamp(x0 - 1 + k, 0, w - 1);
        t.y[k] = std::clamp(y0 - 1 + k, 0, h - 1);
        t.wx[k] = kernel_weight(gx - (x0 - 1 + k), r);
        t.wy[k] = kernel_weight(gy - (y0 - 1 + k), r);
    }
    return t;
}

}  // namespace

std::vector<double> lens_key(const Camera& c) {
    std::vector<double> k{double(c.width), double(c.height), c.fx, c.fy, c.cx, c.cy, double(c.model)};
    k.insert(k.end(), c.distortion.begin(), c.distortion.end());
    return k;
}

UndistortMap make_undistort_map(const Camera& distorted, const Camera& pinhole) {
    UndistortMap m;
    m.pinhole = pinhole;
    m.pinhole.model = CameraModel::pinhole;
    m.pinhole.distortion.clear();
    m.source_width = distorted.width;
    m.source_height = distorted.height;
    const int w = pinhole.width, h = pinhole.height;
    const double sw = distorted.width, sh = distorted.height;
    m.source_xy.resize(std::size_t(w) * std::size_t(h) * 2);
    m.valid.resize(std::size_t(w) * std::size_t(h));
    const Distortion<double> d = distortion_of<double>(distorted);
    std::size_t invalid = 0;
#pragma omp parallel for schedule(static) reduction(+ : invalid)
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = std::size_t(y) * std::size_t(w) + std::size_t(x);
            const Vec2<double> p{(x + 0.5 - pinhole.cx) / pinhole.fx, (y + 0.5 - pinhole.cy) / pinhole.fy};
            const Vec2<double> pd = distort(d, p);
            const double sx = distorted.fx * pd.x + distorted.cx, sy = distorted.fy * pd.y + distorted.cy;
            m.source_xy[2 * i] = float(sx);
            m.source_xy[2 * i + 1] = float(sy);
            const bool ok =
                std::isfinite(sx) && std::isfinite(sy) && sx >= 0 && sy >= 0 && sx <= sw && sy <= sh;
            m.valid[i] = ok;
            invalid += !ok;
        }
    m.invalid_pixels = invalid;
    return m;
}

UndistortMap make_undistort_map(const Camera& distorted) {
    return make_undistort_map(distorted, distorted);
}

Camera crop_camera(const Camera& distorted, const std::string& what) {
    const int w = distorted.width, h = distorted.height;
    const Distortion<double> d = distortion_of<double>(distorted);
    // Normalised, undistorted coordinates of a border pixel centre.
    auto inward = [&](double u, double v) {
        Vec2<double> p;
        const Vec2<double> pd{(u - distorted.cx) / distorted.fx, (v - distorted.cy) / distorted.fy};
        if (!undistort(d, pd, p) || !std::isfinite(p.x) || !std::isfinite(p.y))
            throw Error(fmt::format(
                "{}: the {} lens's image border at pixel ({:.1f}, {:.1f}) has no pinhole equivalent (a view "
                "of 180° or more); train it with --shading ray, which needs no undistortion",
                what, to_string(distorted.model), u, v));
        return p;
    };
    // The inscribed rectangle: the innermost point of each edge bounds it. Sampled as OpenCV's
    // getUndistortRectangles does, so the camera is the one gsplat trains with: nine points an edge from
    // the first pixel centre to one pixel past the last (x = k·W/8 in OpenCV's integer-centre pixels).
    constexpr int kSamples = 9;
    double x0 = -1e300, x1 = 1e300, y0 = -1e300, y1 = 1e300;
    for (int k = 0; k < kSamples; ++k) {
        const double u = 0.5 + k * double(w) / (kSamples - 1), v = 0.5 + k * double(h) / (kSamples - 1);
        x0 = std::max(x0, inward(0.5, v).x);
        x1 = std::min(x1, inward(w + 0.5, v).x);
        y0 = std::max(y0, inward(u, 0.5).y);
        y1 = std::min(y1, inward(u, h + 0.5).y);
    }
    if (!(x1 > x0 && y1 > y0) || w < 2 || h < 2)
        throw Error(fmt::format("{}: the undistorted image border encloses no rectangle", what));
    Camera c = distorted;
    c.model = CameraModel::pinhole;
    c.distortion.clear();
    // The rectangle's corners land on the corner pixels' centres, (0.5, 0.5) and (w − 0.5, h − 0.5).
    c.fx = (w - 1) / (x1 - x0);
    c.fy = (h - 1) / (y1 - y0);
    c.cx = 0.5 - c.fx * x0;
    c.cy = 0.5 - c.fy * y0;
    return c;
}

const char* to_string(Resample r) {
    return r == Resample::bilinear ? "bilinear" : "bicubic";
}

Image<std::uint8_t> undistort_image(const UndistortMap& m, const Image<std::uint8_t>& in, Resample resample) {
    if (in.width != m.source_width || in.height != m.source_height)
        throw Error(fmt::format("undistort: image is {}x{}, the camera {}x{}", in.width, in.height,
                                m.source_width, m.source_height));
    const int w = m.pinhole.width, h = m.pinhole.height;
    Image<std::uint8_t> out(w, h, in.channels);
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = std::size_t(y) * std::size_t(w) + std::size_t(x);
            if (!m.valid[i]) continue;
            const Taps t = taps(m.source_xy[2 * i], m.source_xy[2 * i + 1], in.width, in.height, resample);
            for (int c = 0; c < in.channels; ++c) {
                double v = 0;
                for (int j = 0; j < 4; ++j) {
                    double row = 0;
                    for (int k = 0; k < 4; ++k) row += t.wx[k] * in.at(t.x[k], t.y[j], c);
                    v += t.wy[j] * row;
                }
                out.at(x, y, c) = std::uint8_t(std::lround(v < 0 ? 0 : (v > 255 ? 255 : v)));
            }
        }
    return out;
}

Image<std::uint8_t> undistort_mask(const UndistortMap& m, const Image<std::uint8_t>& source_mask,
                                   Resample resample) {
    const bool masked = !source_mask.data.empty();
    if (masked && (source_mask.width != m.source_width || source_mask.height != m.source_height ||
                   source_mask.channels != 1))
        throw Error(fmt::format("undistort: mask is {}x{}x{}, the camera {}x{}", source_mask.width,
                                source_mask.height, source_mask.channels, m.source_width, m.source_height));
    const int w = m.pinhole.width, h = m.pinhole.height;
    Image<std::uint8_t> out(w, h, 1, kMaskInvalid);
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = std::size_t(y) * std::size_t(w) + std::size_t(x);
            if (!m.valid[i]) continue;
            bool ok = true;
            if (masked) {
                // Any tap the sample reads with weight makes the output depend on that source pixel.
                const Taps t = taps(m.source_xy[2 * i], m.source_xy[2 * i + 1], m.source_width,
                                    m.source_height, resample);
                for (int j = 0; j < 4 && ok; ++j)
                    for (int k = 0; k < 4 && ok; ++k)
                        ok = t.wx[k] == 0 || t.wy[j] == 0 || source_mask.at(t.x[k], t.y[j]) == kMaskValid;
            }
            out.at(x, y) = ok ? kMaskValid : kMaskInvalid;
        }
    return out;
}

}  // namespace radiant
