#include "radiant/train/appearance_fit.hpp"

#include <array>
#include <cmath>
#include <utility>

#include "radiant/core/error.hpp"

namespace radiant {

const char* to_string(EvalAppearance e) {
    return e == EvalAppearance::fit_left_half ? "fit-left-half" : "identity";
}

Image<std::uint8_t> right_half_mask(int width, int height, const Image<std::uint8_t>* mask) {
    Image<std::uint8_t> out(width, height, 1, kMaskInvalid);
    const bool own = mask && !mask->data.empty();
    for (int y = 0; y < height; ++y)
        for (int x = width / 2; x < width; ++x)
            if (!own || mask->at(x, y) == kMaskValid) out.at(x, y) = kMaskValid;
    return out;
}

std::vector<float> fit_affine_left_half(const Image<float>& render, const Image<float>& target,
                                        const Image<std::uint8_t>* mask) {
    RADIANT_CHECK(render.channels == 3 && target.channels == 3 && render.width == target.width &&
                      render.height == target.height,
                  "fit-left-half: render and target must be RGB of one size");
    // Normal equations of out_c = A_c · [r, g, b, 1], the same 4×4 matrix for the three rows.
    std::array<double, 16> xtx{};
    std::array<double, 12> xty{};
    const bool own = mask && !mask->data.empty();
    std::size_t n = 0;
    for (int y = 0; y < render.height; ++y)
        for (int x = 0; x < render.width / 2; ++x) {
            if (own && mask->at(x, y) != kMaskValid) continue;
            const double v[4] = {render.at(x, y, 0), render.at(x, y, 1), render.at(x, y, 2), 1.0};
            for (int i = 0; i < 4; ++i) {
                for (int j = 0; j < 4; ++j) xtx[std::size_t(4 * i + j)] += v[i] * v[j];
                for (int c = 0; c < 3; ++c) xty[std::size_t(4 * c + i)] += v[i] * double(target.at(x, y, c));
            }
            ++n;
        }
    RADIANT_CHECK(n > 0, "fit-left-half: the image's left half has no pixel that counts");
    // A light pull to the identity keeps a flat left half (one colour: a singular system) well posed.
    const double ridge = 1e-6 * double(n);
    std::vector<float> a(kAffineParams);
    for (int c = 0; c < 3; ++c) {
        double m[4][5];
        for (int i = 0; i < 4; ++i) {
            for (int j = 0; j < 4; ++j) m[i][j] = xtx[std::size_t(4 * i + j)] + (i == j ? ridge : 0.0);
            m[i][4] = xty[std::size_t(4 * c + i)] + ridge * appearance_identity(4 * c + i);
        }
        // Gaussian elimination with partial pivoting (the matrix is symmetric positive definite).
        for (int k = 0; k < 4; ++k) {
            int p = k;
            for (int i = k + 1; i < 4; ++i)
                if (std::abs(m[i][k]) > std::abs(m[p][k])) p = i;
            for (int j = 0; j < 5; ++j) std::swap(m[k][j], m[p][j]);
            for (int i = k + 1; i < 4; ++i) {
                const double f = m[i][k] / m[k][k];
                for (int j = k; j < 5; ++j) m[i][j] -= f * m[k][j];
            }
        }
        // Back substitution in double; the row is rounded to float once, at the end.
        double x[4];
        for (int i = 3; i >= 0; --i) {
            double s = m[i][4];
            for (int j = i + 1; j < 4; ++j) s -= m[i][j] * x[j];
            x[i] = s / m[i][i];
        }
        for (int i = 0; i < 4; ++i) a[std::size_t(4 * c + i)] = float(x[i]);
    }
    return a;
}

}  // namespace radiant
