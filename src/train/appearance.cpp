#include "radiant/train/appearance.hpp"

#include <fmt/format.h>

#include <cmath>

#include "radiant/core/adam_update.hpp"
#include "radiant/core/error.hpp"
#include "radiant/train/schedule.hpp"

namespace radiant {

const char* to_string(AppearanceModel m) {
    switch (m) {
        case AppearanceModel::exposure:
            return "exposure";
        case AppearanceModel::bilateral:
            return "bilateral";
        case AppearanceModel::off:
            break;
    }
    return "off";
}

double appearance_lr(const AppearanceConfig& c, long step, long steps) {
    if (c.model == AppearanceModel::exposure)
        return exponential_lr(c.exposure_lr, c.exposure_lr / 10, step, steps);
    if (c.model != AppearanceModel::bilateral) return 0;
    // gsplat: LinearLR(start_factor 0.01, 1,000 iterations) chained with ExponentialLR to 1 % at the end.
    const double warm = step >= 1000 ? 1.0 : 0.01 + 0.99 * double(step) / 1000.0;
    return warm * exponential_lr(c.bilateral_lr, c.bilateral_lr / 100, step, steps);
}

AppearanceState AppearanceState::identity(AppearanceModel model, std::size_t images) {
    AppearanceState s;
    s.model = model;
    const std::size_t k = s.per_image();
    s.params.resize(images * k);
    for (std::size_t i = 0; i < s.params.size(); ++i) s.params[i] = appearance_identity(int(i % k));
    s.m.assign(images * k, 0.f);
    s.v.assign(images * k, 0.f);
    s.steps.assign(images, 0);
    return s;
}

void validate(const AppearanceState& s, const std::string& name) {
    const std::size_t want = s.images() * s.per_image();
    if (s.params.size() != want || s.m.size() != want || s.v.size() != want)
        throw IoError(name, fmt::format("appearance ({}) holds {} values for {} images of {} each",
                                        to_string(s.model), s.params.size(), s.images(), s.per_image()));
    for (float p : s.params)
        if (!std::isfinite(p)) throw IoError(name, "appearance parameters are not finite");
}

template <class T>
Image<T> apply_appearance(AppearanceModel model, const T* params, const Image<T>& render) {
    RADIANT_CHECK(render.channels == 3, "appearance: the render must be RGB");
    Image<T> out(render.width, render.height, 3);
    const int w = render.width, h = render.height;
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t p = 3 * (std::size_t(y) * std::size_t(w) + std::size_t(x));
            appearance_apply(model, params, x, y, w, h, render.data.data() + p, out.data.data() + p);
        }
    return out;
}

template <class T>
Image<T> appearance_backward(AppearanceModel model, const T* params, const Image<T>& render,
                             const Image<T>& v_out, std::vector<T>& grad) {
    RADIANT_CHECK(render.channels == 3 && v_out.width == render.width && v_out.height == render.height &&
                      v_out.channels == 3,
                  "appearance: the render and its gradient must be RGB of one size");
    RADIANT_CHECK(grad.size() == std::size_t(appearance_params(model)), "appearance: gradient size");
    Image<T> v_rgb(render.width, render.height, 3);
    const int w = render.width, h = render.height;
    // Serial: the grid's corners are shared between neighbouring pixels, and this is the reference.
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t p = 3 * (std::size_t(y) * std::size_t(w) + std::size_t(x));
            appearance_vjp(model, params, x, y, w, h, render.data.data() + p, v_out.data.data() + p,
                           v_rgb.data.data() + p, [&](int j, T g) { grad[std::size_t(j)] += g; });
        }
    return v_rgb;
}

AdamElementConfig appearance_adam(const AppearanceStep& step, const AdamConfig& adam, std::int64_t t) {
    return {float(step.lr),
            float(adam.beta1),
            float(adam.beta2),
            float(adam.eps),
            float(1 - std::pow(adam.beta1, double(t))),
            float(1 - std::pow(adam.beta2, double(t))),
            0.f,
            -INFINITY,
            INFINITY};
}

double appearance_update(AppearanceState& s, std::size_t image, std::vector<float>& grad,
                         const AppearanceStep& step, const AdamConfig& adam) {
    RADIANT_CHECK(image < s.images(), fmt::format("appearance: no image {} ({} held)", image, s.images()));
    const std::size_t k = s.per_image(), at = image * k;
    RADIANT_CHECK(grad.size() == k, "appearance: gradient size");
    float* p = s.params.data() + at;
    double reg = 0;
    for (std::size_t j = 0; j < k; ++j) {
        float g = 0;
        reg += appearance_reg_element(s.model, static_cast<const float*>(p), int(j), float(step.reg), g);
        grad[j] += g;
    }
    const AdamElementConfig c = appearance_adam(step, adam, ++s.steps[image]);
    for (std::size_t j = 0; j < k; ++j) adam_update(p[j], grad[j], s.m[at + j], s.v[at + j], c);
    return reg;
}

template Image<float> apply_appearance<float>(AppearanceModel, const float*, const Image<float>&);
template Image<double> apply_appearance<double>(AppearanceModel, const double*, const Image<double>&);
template Image<float> appearance_backward<float>(AppearanceModel, const float*, const Image<float>&,
                                                 const Image<float>&, std::vector<float>&);
template Image<double> appearance_backward<double>(AppearanceModel, const double*, const Image<double>&,
                                                   const Image<double>&, std::vector<double>&);

}  // namespace radiant
