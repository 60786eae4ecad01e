#pragma once
// Gradients of a scalar loss, shared by the trainer and both backends.
#include <cstdint>
#include <vector>

#include "radiant/core/scene.hpp"
#include "radiant/core/vec.hpp"

namespace radiant {

// Per-Gaussian gradients of the 2D quantities the raster consumes [N], and of the background.
template <class T>
struct RasterGrads {
    std::vector<Vec2<T>> v_means2d;
    std::vector<Sym2<T>> v_conics;  // stored form: v_conics.b is ∂L/∂(the one stored off-diagonal)
    std::vector<Vec3<T>> v_colours;
    std::vector<T> v_opacities;  // w.r.t. the activated opacity
    Vec3<T> v_background{};
};

// ∂L/∂(every Scene parameter), same layout as SceneT, plus the densification statistic.
template <class T>
struct SceneGradsT {
    int sh_degree = 0;
    std::vector<T> means;           // [N, 3]
    std::vector<T> log_scales;      // [N, 3]
    std::vector<T> quats;           // [N, 4]
    std::vector<T> opacity_logits;  // [N]
    std::vector<T> sh;              // [N, K, 3]; coefficients above the active degree get 0
    // ‖∂L/∂mean2d‖ in normalised device units (pixels × (W/2, H/2)), the quantity Inria 3DGS thresholds
    // at 2e-4; 0 for Gaussians not visible in this view. Summed over steps by the trainer.
    std::vector<T> mean2d_grad_norms;   // [N]
    std::vector<std::uint8_t> visible;  // [N] 1 when the Gaussian was visible in this view
    Vec3<T> background{};
    // ∂L/∂ of the camera's pose as core/camera_grad.hpp takes it (rotation about its centre, translation
    // along its axes); summed over the Gaussians in index order.
    Vec3<T> camera_rot{}, camera_trans{};

    std::size_t size() const { return opacity_logits.size(); }
    void resize_like(const SceneT<T>& s) {
        sh_degree = s.sh_degree;
        means.assign(s.means.size(), T(0));
        log_scales.assign(s.log_scales.size(), T(0));
        quats.assign(s.quats.size(), T(0));
        opacity_logits.assign(s.opacity_logits.size(), T(0));
        sh.assign(s.sh.size(), T(0));
        mean2d_grad_norms.assign(s.size(), T(0));
        visible.assign(s.size(), 0);
        background = {};
    }
};

using SceneGrads = SceneGradsT<float>;

}  // namespace radiant
