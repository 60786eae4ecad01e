#pragma once
// One view's pose correction fitted alone to the scene as it stands, the scene left unchanged (measuring
// steps, StepInput::update = false): the tracking rounds of --pose-opt training (pose_track_every), and a
// test view's pose fitted before it is scored (--eval-pose-fit), as pose-optimised runs are evaluated —
// their scene sits where the refined training cameras put it, which the test views' given poses do not
// follow.
#include <array>

#include "radiant/core/camera.hpp"
#include "radiant/train/backend.hpp"

namespace radiant {

struct PoseFit {
    int iters = 0;   // measuring steps to spend: 1, then 7 a round (below 8: the correction as given)
    double reg = 0;  // weight decay, as PoseConfig::reg
};

// The correction of `given` (x_cam' = exp([ω]×)·x_cam + τ, pose_opt.hpp) that minimises the loss of `in`'s
// image against the backend's scene, from `start`: Levenberg–Marquardt rounds on the gradient and a Hessian
// from its finite differences, until `fit.iters` steps are spent or no step lowers the loss. `in` gives the
// image, render settings, resolution and loss weight; its camera is replaced.
std::array<double, 6> fit_pose(Backend& backend, StepInput in, const Camera& given,
                               std::array<double, 6> start, const PoseFit& fit, double extent);

}  // namespace radiant
