#pragma once
// Photometric loss (DESIGN.md §1.5): (1 − λ)·L1 + λ·(1 − SSIM), λ = 0.2, with its analytic gradient, and the
// image metrics (PSNR, SSIM). SSIM as Inria 3DGS: per channel, an 11×11 Gaussian window with σ = 1.5, zero
// padding ("same" size), C1 = 0.01², C2 = 0.03², averaged over pixels and channels.
//
// Masks ([H, W, 1], kMaskValid where a pixel counts; null or empty: all count): a pixel that does not
// count never trains and never scores. The render is taken equal to the target there before anything is
// computed, so such a pixel adds no error of its own, leaves its neighbours' SSIM windows as a perfect
// match, and gets exactly zero gradient; L1, MSE and the SSIM map are averaged over the counted pixels.
#include <cstdint>

#include "radiant/core/image.hpp"

namespace radiant {

constexpr double kSsimC1 = 0.01 * 0.01;
constexpr double kSsimC2 = 0.03 * 0.03;
constexpr int kSsimWindow = 11;
constexpr double kSsimSigma = 1.5;

struct LossValue {
    double total = 0, l1 = 0, ssim = 0;
};

// Mean SSIM of a render against a target of the same size and channel count (values in [0, 1]).
template <class T>
double ssim(const Image<T>& render, const Image<T>& target, const Image<std::uint8_t>* mask = nullptr);

// Loss of `render` against `target` and, when v_render is not null, ∂loss/∂render (same shape).
template <class T>
LossValue photometric_loss(const Image<T>& render, const Image<T>& target, double lambda_ssim,
                           Image<T>* v_render, const Image<std::uint8_t>* mask = nullptr);

double psnr(const Image<float>& render, const Image<float>& target,
            const Image<std::uint8_t>* mask = nullptr);

// 8-bit RGB to float [0, 1].
Image<float> to_float(const Image<unsigned char>& image);

}  // namespace radiant
