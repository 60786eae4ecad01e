#pragma once
// How a run with per-image appearance is scored (issue 22). A test image has no learned transform, so by
// default it is scored as the scene renders it (`identity`). `fit-left-half` is the protocol of Inria 3DGS
// 2024's exposure evaluation: fit the image's transform on the left half of the image (render against
// photo), apply it, and score the right half only — numbers that compare with published ones and that no
// transform can inflate by seeing the pixels it is scored on.
#include <cstdint>
#include <string>
#include <vector>

#include "radiant/core/appearance.hpp"
#include "radiant/core/image.hpp"

namespace radiant {

enum class EvalAppearance { identity, fit_left_half };
const char* to_string(EvalAppearance e);  // "identity", "fit-left-half"

// The affine colour transform (3×4, core/appearance.hpp) that best maps the render onto the target over
// the left half's counted pixels, in least squares — the protocol's transform whatever the run trained
// with: a per-image grid cannot be carried to a test photo, and the left half says nothing about how a
// transform would vary across the right.
std::vector<float> fit_affine_left_half(const Image<float>& render, const Image<float>& target,
                                        const Image<std::uint8_t>* mask);

// The right half of an image's mask (pixels x ≥ W/2 that the image's own mask keeps), for scoring.
Image<std::uint8_t> right_half_mask(int width, int height, const Image<std::uint8_t>* mask);

}  // namespace radiant
