#include "radiant/io/undistort.hpp"

#include <fmt/format.h>

#include <cmath>

#include "radiant/core/distortion.hpp"
#include "radiant/core/error.hpp"

namespace radiant {

UndistortMap make_undistort_map(const Camera& distorted) {
    UndistortMap m;
    m.pinhole = distorted;
    m.pinhole.model = CameraModel::pinhole;
    m.pinhole.distortion.clear();
    const int w = distorted.width, h = distorted.height;
    m.source_xy.resize(std::size_t(w) * std::size_t(h) * 2);
    m.valid.resize(std::size_t(w) * std::size_t(h));
    const Distortion<double> d = distortion_of<double>(distorted);
    std::size_t invalid = 0;
#pragma omp parallel for schedule(static) reduction(+ : invalid)
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = std::size_t(y) * std::size_t(w) + std::size_t(x);
            const Vec2<double> p{(x + 0.5 - distorted.cx) / distorted.fx,
                                 (y + 0.5 - distorted.cy) / distorted.fy};
            const Vec2<double> pd = distort(d, p);
            const double sx = distorted.fx * pd.x + distorted.cx, sy = distorted.fy * pd.y + distorted.cy;
            m.source_xy[2 * i] = float(sx);
            m.source_xy[2 * i + 1] = float(sy);
            const bool ok =
                std::isfinite(sx) && std::isfinite(sy) && sx >= 0 && sy >= 0 && sx <= w && sy <= h;
            m.valid[i] = ok;
            invalid += !ok;
        }
    m.invalid_pixels = invalid;
    return m;
}

Image<std::uint8_t> undistort_image(const UndistortMap& m, const Image<std::uint8_t>& in) {
    const int w = m.pinhole.width, h = m.pinhole.height;
    if (in.width != w || in.height != h)
        throw Error(fmt::format("undistort: image is {}x{}, the camera {}x{}", in.width, in.height, w, h));
    Image<std::uint8_t> out(w, h, in.channels);
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = std::size_t(y) * std::size_t(w) + std::size_t(x);
            if (!m.valid[i]) continue;
            // continuous coordinates → sample grid where pixel centres sit at integers
            const double sx = m.source_xy[2 * i] - 0.5, sy = m.source_xy[2 * i + 1] - 0.5;
            const int x0 = int(std::floor(sx)), y0 = int(std::floor(sy));
            const double fx = sx - x0, fy = sy - y0;
            auto at = [&](int xx, int yy, int c) {
                xx = xx < 0 ? 0 : (xx >= w ? w - 1 : xx);
                yy = yy < 0 ? 0 : (yy >= h ? h - 1 : yy);
                return double(in.at(xx, yy, c));
            };
            for (int c = 0; c < in.channels; ++c) {
                const double v = (1 - fy) * ((1 - fx) * at(x0, y0, c) + fx * at(x0 + 1, y0, c)) +
                                 fy * ((1 - fx) * at(x0, y0 + 1, c) + fx * at(x0 + 1, y0 + 1, c));
                out.at(x, y, c) = std::uint8_t(std::lround(v < 0 ? 0 : (v > 255 ? 255 : v)));
            }
        }
    return out;
}

}  // namespace radiant
