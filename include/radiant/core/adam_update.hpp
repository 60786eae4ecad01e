#pragma once
// One Adam update of one element (DESIGN.md §1.8), shared by the CPU optimizer and the CUDA kernel:
// non-finite gradients count as 0, optional per-element clip, bias correction, value bounds, and an update
// that would make the value non-finite is rejected. A value that is already non-finite (made so outside
// Adam: a fault, a densification overflow) is left for the trainer to remove with its Gaussian.
#include <cmath>

#include "radiant/core/hd.hpp"

namespace radiant {

struct AdamElementConfig {
    float lr, beta1, beta2, eps;
    float bias1, bias2;  // 1 − β^t
    float grad_clip;     // 0 = off
    float min_value, max_value;
};

enum AdamFlag : int { kAdamBadGrad = 1, kAdamRejected = 2, kAdamBadParam = 4 };

// Returns AdamFlag bits: the gradient was not finite; the update was rejected; the value was not finite.
RADIANT_HD int adam_update(float& p, float g, float& m, float& v, const AdamElementConfig& c) {
    if (!std::isfinite(p)) return kAdamBadParam;
    int flags = 0;
    if (!std::isfinite(g)) {
        g = 0.f;
        flags |= kAdamBadGrad;
    }
    if (c.grad_clip > 0.f) g = g < -c.grad_clip ? -c.grad_clip : (g > c.grad_clip ? c.grad_clip : g);
    m = c.beta1 * m + (1.f - c.beta1) * g;
    v = c.beta2 * v + (1.f - c.beta2) * g * g;
    float next = p - c.lr * (m / c.bias1) / (std::sqrt(v / c.bias2) + c.eps);
    next = next < c.min_value ? c.min_value : (next > c.max_value ? c.max_value : next);
    if (std::isfinite(next))
        p = next;
    else
        flags |= kAdamRejected;
    return flags;
}

}  // namespace radiant
