#include "radiant/train/loss.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "radiant/core/error.hpp"

namespace radiant {
namespace {

std::vector<double> gaussian_window() {
    std::vector<double> g(kSsimWindow);
    double sum = 0;
    for (int i = 0; i < kSsimWindow; ++i) {
        const double d = i - kSsimWindow / 2;
        g[std::size_t(i)] = std::exp(-d * d / (2 * kSsimSigma * kSsimSigma));
        sum += g[std::size_t(i)];
    }
    for (double& v : g) v /= sum;
    return g;
}

// Separable Gaussian filter of one channel plane [H, W] with zero padding, "same" size. The window is
// symmetric, so this is also its own adjoint (used by the backward).
void blur(const std::vector<double>& in, int w, int h, const std::vector<double>& g, std::vector<double>& out,
          std::vector<double>& tmp) {
    const int r = kSsimWindow / 2;
    tmp.assign(in.size(), 0.0);
    out.assign(in.size(), 0.0);
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double s = 0;
            for (int k = -r; k <= r; ++k) {
                const int xx = x + k;
                if (xx >= 0 && xx < w) s += g[std::size_t(k + r)] * in[std::size_t(y * w + xx)];
            }
            tmp[std::size_t(y * w + x)] = s;
        }
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double s = 0;
            for (int k = -r; k <= r; ++k) {
                const int yy = y + k;
                if (yy >= 0 && yy < h) s += g[std::size_t(k + r)] * tmp[std::size_t(yy * w + x)];
            }
            out[std::size_t(y * w + x)] = s;
        }
}

// The mask to honour, or null when every pixel counts.
const Image<std::uint8_t>* effective(const Image<std::uint8_t>* mask) {
    return mask && !mask->data.empty() ? mask : nullptr;
}

bool counts(const Image<std::uint8_t>* mask, std::size_t p) {
    return !mask || mask->data[p] == kMaskValid;
}

// SSIM summed over the counted pixels of one channel, and (optionally) its gradient w.r.t. a added into
// v_a scaled by `scale`. Pixels that do not count read the target's value in place of the render's.
template <class T>
double ssim_channel(const Image<T>& a, const Image<T>& b, int c, double scale, Image<T>* v_a,
                    const Image<std::uint8_t>* mask) {
    const int w = a.width, h = a.height;
    const std::size_t n = std::size_t(w) * std::size_t(h);
    static thread_local std::vector<double> g = gaussian_window();
    std::vector<double> x(n), y(n), xx(n), yy(n), xy(n), mx, my, sxx, syy, sxy, tmp;
    for (std::size_t p = 0; p < n; ++p) {
        y[p] = double(b.data[p * std::size_t(b.channels) + std::size_t(c)]);
        x[p] = counts(mask, p) ? double(a.data[p * std::size_t(a.channels) + std::size_t(c)]) : y[p];
        xx[p] = x[p] * x[p];
        yy[p] = y[p] * y[p];
        xy[p] = x[p] * y[p];
    }
    blur(x, w, h, g, mx, tmp);
    blur(y, w, h, g, my, tmp);
    blur(xx, w, h, g, sxx, tmp);
    blur(yy, w, h, g, syy, tmp);
    blur(xy, w, h, g, sxy, tmp);
    double sum = 0;
    std::vector<double> d_mu(v_a ? n : 0), d_var(v_a ? n : 0), d_cov(v_a ? n : 0);
    for (std::size_t p = 0; p < n; ++p) {
        if (!counts(mask, p)) continue;  // the d_* stay 0: the map is averaged over counted pixels only
        const double vx = sxx[p] - mx[p] * mx[p], vy = syy[p] - my[p] * my[p], cxy = sxy[p] - mx[p] * my[p];
        const double a1 = 2 * mx[p] * my[p] + kSsimC1, a2 = 2 * cxy + kSsimC2;
        const double b1 = mx[p] * mx[p] + my[p] * my[p] + kSsimC1, b2 = vx + vy + kSsimC2;
        const double s = a1 * a2 / (b1 * b2);
        sum += s;
        if (v_a) {
            // ∂S/∂μx, ∂S/∂σx², ∂S/∂σxy with the three statistics taken as independent
            d_mu[p] = scale * (2 * my[p] * a2 / (b1 * b2) - s * 2 * mx[p] / b1);
            d_var[p] = scale * (-s / b2);
            d_cov[p] = scale * (2 * a1 / (b1 * b2));
        }
    }
    if (v_a) {
        // ∂/∂x_p = G⊛dμ + 2 x_p G⊛dvar − 2 G⊛(dvar·μx) + y_p G⊛dcov − G⊛(dcov·μy)
        std::vector<double> dvar_mx(n), dcov_my(n), g_mu, g_var, g_var_mx, g_cov, g_cov_my;
        for (std::size_t p = 0; p < n; ++p) {
            dvar_mx[p] = d_var[p] * mx[p];
            dcov_my[p] = d_cov[p] * my[p];
        }
        blur(d_mu, w, h, g, g_mu, tmp);
        blur(d_var, w, h, g, g_var, tmp);
        blur(dvar_mx, w, h, g, g_var_mx, tmp);
        blur(d_cov, w, h, g, g_cov, tmp);
        blur(dcov_my, w, h, g, g_cov_my, tmp);
        for (std::size_t p = 0; p < n; ++p)
            if (counts(mask, p))  // x_p is the target's value elsewhere: no dependence on the render
                v_a->data[p * std::size_t(a.channels) + std::size_t(c)] +=
                    T(g_mu[p] + 2 * x[p] * g_var[p] - 2 * g_var_mx[p] + y[p] * g_cov[p] - g_cov_my[p]);
    }
    return sum;
}

template <class T>
void check_same(const Image<T>& a, const Image<T>& b, const Image<std::uint8_t>* mask) {
    if (a.width != b.width || a.height != b.height || a.channels != b.channels)
        throw Error(fmt::format("image sizes differ: {}x{}x{} vs {}x{}x{}", a.width, a.height, a.channels,
                                b.width, b.height, b.channels));
    if (mask && (mask->width != a.width || mask->height != a.height || mask->channels != 1))
        throw Error(fmt::format("mask is {}x{}x{}, the image {}x{}", mask->width, mask->height,
                                mask->channels, a.width, a.height));
}

// Values (pixels × channels) that count; at least one.
template <class T>
double counted_values(const Image<T>& a, const Image<std::uint8_t>* mask) {
    std::size_t pixels = a.pixels();
    if (mask) pixels = valid_count(*mask);
    RADIANT_CHECK(pixels > 0, "the mask leaves no pixel to compare");
    return double(pixels) * double(a.channels);
}

}  // namespace

template <class T>
double ssim(const Image<T>& a, const Image<T>& b, const Image<std::uint8_t>* mask_in) {
    const Image<std::uint8_t>* mask = effective(mask_in);
    check_same(a, b, mask);
    double sum = 0;
    for (int c = 0; c < a.channels; ++c) sum += ssim_channel<T>(a, b, c, 0, nullptr, mask);
    return sum / counted_values(a, mask);
}

template <class T>
LossValue photometric_loss(const Image<T>& render, const Image<T>& target, double lambda, Image<T>* v_render,
                           const Image<std::uint8_t>* mask_in) {
    const Image<std::uint8_t>* mask = effective(mask_in);
    check_same(render, target, mask);
    const double n = counted_values(render, mask);
    const std::size_t ch = std::size_t(render.channels);
    LossValue v;
    if (v_render) *v_render = Image<T>(render.width, render.height, render.channels);
    double l1 = 0;
    for (std::size_t i = 0; i < render.data.size(); ++i) {
        if (!counts(mask, i / ch)) continue;
        const double d = double(render.data[i]) - double(target.data[i]);
        l1 += std::abs(d);
        if (v_render) v_render->data[i] = T((1 - lambda) * (d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0)) / n);
    }
    v.l1 = l1 / n;
    if (lambda > 0) {
        double s = 0;
        for (int c = 0; c < render.channels; ++c)
            s += ssim_channel<T>(render, target, c, -lambda / n, v_render, mask);
        v.ssim = s / n;
    } else {
        v.ssim = 1;
    }
    v.total = (1 - lambda) * v.l1 + lambda * (1 - v.ssim);
    return v;
}

double psnr(const Image<float>& a, const Image<float>& b, const Image<std::uint8_t>* mask_in) {
    const Image<std::uint8_t>* mask = effective(mask_in);
    check_same(a, b, mask);
    const std::size_t ch = std::size_t(a.channels);
    double mse = 0;
    for (std::size_t i = 0; i < a.data.size(); ++i) {
        if (!counts(mask, i / ch)) continue;
        const double d = double(a.data[i]) - double(b.data[i]);
        mse += d * d;
    }
    mse /= counted_values(a, mask);
    return mse > 0 ? 10 * std::log10(1.0 / mse) : 100.0;
}

Image<float> to_float(const Image<unsigned char>& image) {
    Image<float> f(image.width, image.height, image.channels);
    for (std::size_t i = 0; i < image.data.size(); ++i) f.data[i] = float(image.data[i]) / 255.0f;
    return f;
}

template double ssim<float>(const Image<float>&, const Image<float>&, const Image<std::uint8_t>*);
template double ssim<double>(const Image<double>&, const Image<double>&, const Image<std::uint8_t>*);
template LossValue photometric_loss<float>(const Image<float>&, const Image<float>&, double, Image<float>*,
                                           const Image<std::uint8_t>*);
template LossValue photometric_loss<double>(const Image<double>&, const Image<double>&, double,
                                            Image<double>*, const Image<std::uint8_t>*);

}  // namespace radiant
