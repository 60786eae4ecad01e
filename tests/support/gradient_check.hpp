#pragma once
// Finite-difference checks of the analytic backward in double precision (issue 3). The loss is
// L = Σ w·C with random weights w. A central difference is used only when the perturbed renders keep the
// base render's discrete structure (visible set, every pixel's hit list, clamped α, clamped colours, clamped
// Jacobians): the checks stay off discontinuities by construction rather than by luck.
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "radiant/core/composite.hpp"
#include "radiant/core/ewa.hpp"
#include "radiant/render/cpu/render_cpu.hpp"

namespace radiant::test {

struct GradCheckProblem {
    SceneT<double> scene;
    Camera camera;
    RenderSettings settings;  // trace_mode / max_splat_steps as the backward under test should use
    Image<double> weights;    // [H, W, 3]
};

inline Image<double> random_weights(std::uint32_t seed, int w, int h) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> n(0, 1);
    Image<double> img(w, h, 3);
    for (double& v : img.data) v = n(rng);
    return img;
}

// Discrete structure of a render; equal signatures mean no discontinuity lies between two renders.
inline std::vector<std::int64_t> signature(const SceneT<double>& scene, const Camera& cam,
                                           const ForwardResult<double>& f) {
    std::vector<std::int64_t> sig;
    const auto pc = pinhole_params<double>(cam);
    for (std::size_t g = 0; g < f.projected.size(); ++g) {
        sig.push_back(f.projected.visible(g));
        if (!f.projected.visible(g)) continue;
        for (int c = 0; c < 3; ++c) sig.push_back(f.projected.colours[g][c] == 0.0);
        const auto j = perspective_jacobian(pc, world_to_camera(pc, scene.mean(g)));
        sig.push_back(j.clamped_x * 2 + j.clamped_y);
    }
    const auto& tr = f.trace;
    for (std::size_t p = 0; p < tr.n_hits.size(); ++p) {
        sig.push_back(tr.n_hits[p]);
        for (int k = 0; k < tr.n_hits[p]; ++k) {
            const std::size_t slot = p * std::size_t(tr.stride) + std::size_t(k);
            sig.push_back(tr.hit_gids[slot]);
            sig.push_back(tr.hit_alphas[slot] == kMaxAlpha);
        }
    }
    return sig;
}

struct GroupError {
    std::string group;
    double rel_error = 0;  // ‖analytic − fd‖ / ‖fd‖ over the checked entries
    double fd_norm = 0;
    int checked = 0, skipped = 0, available = 0;
};

class GradientChecker {
  public:
    explicit GradientChecker(GradCheckProblem p, double step = 1e-6) : p_(std::move(p)), h_(step) {
        probe_ = p_.settings;
        probe_.trace_mode = TraceMode::trace;  // the probe renders record every hit for the signature
        // Unlimited: a pixel cannot hit more Gaussians than the scene has.
        if (probe_.max_splat_steps == 0) probe_.max_splat_steps = int(p_.scene.size()) + 1;
        const auto f = render(p_.scene);
        base_sig_ = signature(p_.scene, p_.camera, f);
        const auto fwd = cpu::render_forward(p_.scene, p_.camera, p_.settings);
        grads_ = cpu::render_backward(p_.scene, p_.camera, p_.settings, fwd, p_.weights);
    }

    const SceneGradsT<double>& grads() const { return grads_; }

    double loss_of(const SceneT<double>& s, bool* same_structure) const {
        const auto f = render(s);
        if (same_structure) *same_structure = signature(s, p_.camera, f) == base_sig_;
        double l = 0;
        for (std::size_t i = 0; i < f.rgb.data.size(); ++i) l += p_.weights.data[i] * f.rgb.data[i];
        return l;
    }

    // Checks up to `samples` entries of one parameter group (indices drawn at random).
    GroupError check(const std::string& group, std::vector<double> SceneT<double>::*param,
                     const std::vector<double>& analytic, int samples, std::uint32_t seed,
                     const std::function<bool(std::size_t)>& eligible = {}) const {
        GroupError e{group};
        std::vector<std::size_t> idx;
        for (std::size_t i = 0; i < analytic.size(); ++i)
            if (!eligible || eligible(i)) idx.push_back(i);
        e.available = int(idx.size());
        std::mt19937 rng(seed);
        std::shuffle(idx.begin(), idx.end(), rng);
        double num = 0, den = 0;
        for (std::size_t i : idx) {
            if (e.checked >= samples) break;
            SceneT<double> plus = p_.scene, minus = p_.scene;
            (plus.*param)[i] += h_;
            (minus.*param)[i] -= h_;
            bool same_plus = false, same_minus = false;
            const double lp = loss_of(plus, &same_plus), lm = loss_of(minus, &same_minus);
            if (!same_plus || !same_minus) {
                ++e.skipped;
                continue;
            }
            const double fd = (lp - lm) / (2 * h_);
            num += (analytic[i] - fd) * (analytic[i] - fd);
            den += fd * fd;
            ++e.checked;
        }
        e.fd_norm = std::sqrt(den);
        e.rel_error = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
        return e;
    }

    // Every group: means, log_scales, quats, opacity_logits, SH DC and SH rest (when degree > 0).
    std::vector<GroupError> check_all(int samples, std::uint32_t seed) const {
        const std::size_t k = std::size_t(p_.scene.sh_coeffs());
        std::vector<GroupError> out;
        out.push_back(check("means", &SceneT<double>::means, grads_.means, samples, seed));
        out.push_back(check("log_scales", &SceneT<double>::log_scales, grads_.log_scales, samples, seed + 1));
        out.push_back(check("quats", &SceneT<double>::quats, grads_.quats, samples, seed + 2));
        out.push_back(check("opacity_logits", &SceneT<double>::opacity_logits, grads_.opacity_logits, samples,
                            seed + 3));
        out.push_back(check("sh_dc", &SceneT<double>::sh, grads_.sh, samples, seed + 4,
                            [k](std::size_t i) { return (i / 3) % k == 0; }));
        if (k > 1)
            out.push_back(check("sh_rest", &SceneT<double>::sh, grads_.sh, samples, seed + 5,
                                [k](std::size_t i) { return (i / 3) % k != 0; }));
        return out;
    }

  private:
    ForwardResult<double> render(const SceneT<double>& s) const {
        return cpu::render_forward(s, p_.camera, probe_);
    }

    GradCheckProblem p_;
    double h_;
    RenderSettings probe_;
    std::vector<std::int64_t> base_sig_;
    SceneGradsT<double> grads_;
};

}  // namespace radiant::test
