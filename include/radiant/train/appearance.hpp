#pragma once
// Per-image appearance compensation in training (issue 22; the maths in core/appearance.hpp): its settings,
// state (parameters and Adam moments of every image, in the checkpoint), learning-rate schedule, and the
// host implementation the CPU backend uses — apply to a render, VJP, regulariser and Adam on one image.
#include <cstdint>
#include <string>
#include <vector>

#include "radiant/core/adam_update.hpp"
#include "radiant/core/appearance.hpp"
#include "radiant/core/image.hpp"
#include "radiant/train/adam.hpp"

namespace radiant {

const char* to_string(AppearanceModel m);  // "off", "exposure", "bilateral"

struct AppearanceConfig {
    AppearanceModel model = AppearanceModel::off;
    // exposure: Inria 3DGS 2024's rate, decaying 10× over the run; a weak pull towards the identity.
    double exposure_lr = 0.01, exposure_reg = 0.01;
    // bilateral: gsplat's rate (1 % warm-up over 1,000 steps, then decaying 100× over the run) and its
    // total-variation weight.
    double bilateral_lr = 0.002, bilateral_tv = 10;

    double reg() const { return model == AppearanceModel::exposure ? exposure_reg : bilateral_tv; }
};

// This step's learning rate for the appearance parameters.
double appearance_lr(const AppearanceConfig& config, long step, long steps);

// Every image's parameters and Adam moments (images × appearance_params(model) each), with each image's
// own Adam step count: an image's transform moves only on the steps that train on it.
struct AppearanceState {
    AppearanceModel model = AppearanceModel::off;
    std::vector<float> params, m, v;
    std::vector<std::int64_t> steps;

    std::size_t images() const { return steps.size(); }
    std::size_t per_image() const { return std::size_t(appearance_params(model)); }
    const float* image_params(std::size_t i) const { return params.data() + i * per_image(); }
    // Identity transforms and zero moments for `images` images.
    static AppearanceState identity(AppearanceModel model, std::size_t images);
};

// Throws IoError(name, …) when the arrays do not match the model and image count.
void validate(const AppearanceState& state, const std::string& name);

// What one training step does with image i's appearance (both backends).
struct AppearanceStep {
    double lr = 0, reg = 0;
};

// A render [H, W, 3] through one image's parameters, and the VJP: ∂/∂render of v_out·out, with
// ∂/∂params added into grad (per_image values).
template <class T>
Image<T> apply_appearance(AppearanceModel model, const T* params, const Image<T>& render);
template <class T>
Image<T> appearance_backward(AppearanceModel model, const T* params, const Image<T>& render,
                             const Image<T>& v_out, std::vector<T>& grad);

// Adam's settings for an image's t-th update (its own bias correction), on both backends.
AdamElementConfig appearance_adam(const AppearanceStep& step, const AdamConfig& adam, std::int64_t t);

// Adds the regulariser's gradient to grad, then one Adam step on image i's parameters; returns the
// regulariser's value.
double appearance_update(AppearanceState& state, std::size_t image, std::vector<float>& grad,
                         const AppearanceStep& step, const AdamConfig& adam);

}  // namespace radiant
