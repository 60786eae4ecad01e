#pragma once
// Pose refinement (issue 22 item 2): a correction of each training image's world→camera pose, learned with
// Adam beside the scene. The corrected camera sees x_cam' = exp([ω]×)·x_cam + τ — the motion
// core/camera_grad.hpp differentiates a render by — so ω turns the camera about its own centre and τ moves it
// along its own axes; both start at zero.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "radiant/core/camera.hpp"
#include "radiant/core/vec.hpp"

namespace radiant {

struct PoseConfig {
    bool enabled = false;
    // Adam's rate for ω (radians), decaying exponentially to lr_final over the run; τ's is the same times the
    // scene's extent. gsplat's 1e-5 suits its per-step update of every camera; here an image's correction
    // moves only on the steps that draw it (once an epoch), so the rate is larger. Measured on the jittered
    // demo scene (tests/train/pose_recovery_test.cpp): 1e-3 and above let the early, noisy gradients walk
    // the corrections away before the scene has formed; 3e-4 recovered the most.
    double lr = 3e-4, lr_final = 3e-5;
    double reg = 1e-6;  // weight decay (L2 on ω and τ / extent, gsplat's pose_opt_reg)
    long start = 0;     // steps before the corrections start to learn (the rate decays over the rest)
    // Tracking rounds: every track_every steps (0: none), each training view's correction alone is fitted to
    // the scene as it stands with track_iters measuring steps (train/pose_fit.hpp).
    long track_every = 0;
    int track_iters = 50;
};

struct PoseState {
    std::vector<std::array<double, 6>> delta;  // per image: ω (3), τ (3)
    std::vector<std::array<double, 6>> m, v;   // Adam's moments
    std::vector<std::int64_t> steps;           // Adam steps per image (its bias correction)

    static PoseState zero(std::size_t images);
    std::size_t images() const { return delta.size(); }
    bool empty() const { return delta.empty(); }
};

// Throws IoError naming `name` when the arrays disagree in size or hold non-finite values.
void validate(const PoseState& state, const std::string& name);

// The camera with its correction applied: R' = exp([ω]×)·R, t' = exp([ω]×)·t + τ.
Camera corrected_camera(const Camera& camera, const std::array<double, 6>& delta);

// How far a correction takes its camera: the turn |ω| in degrees, and the distance its centre moves, |τ| in
// the world's units (the centre goes from −Rᵀt to −Rᵀt − Rᵀ·exp(−[ω]×)·τ; a rotation keeps the length).
struct CorrectionSize {
    double turn_deg = 0, move = 0;
};
CorrectionSize correction_size(const std::array<double, 6>& delta);

// ∂L/∂(ω, τ) from the render's gradient with respect to a motion of the corrected camera
// (core/camera_grad.hpp: ∂L/∂ε, ∂L/∂τ'): changing ω turns the camera frame about the *uncorrected* centre,
// which the render sees as the rotation ε = J(ω)·dω plus the translation −ε × τ.
std::array<double, 6> pose_param_grads(const std::array<double, 6>& delta, Vec3<double> v_rot,
                                       Vec3<double> v_trans);

// One Adam step of image `image`'s correction from the render's camera gradient, at rate `lr` (ω) and
// lr × extent (τ).
void pose_update(PoseState& state, std::size_t image, Vec3<double> v_rot, Vec3<double> v_trans, double lr,
                 double extent, const PoseConfig& config);

// The scene and every camera can move together without changing a pixel; left free, the corrections drift
// along that motion and take the scene away from the poses the test views were given. Each correction is a
// motion of its camera in the world, x ↦ exp([Ω]×)·x + T; this takes the mean (Ω, T) over `images` out of
// every one of them (to first order), so the refined cameras keep the given ones' average placement.
void remove_common_motion(PoseState& state, const std::vector<const Camera*>& cameras,
                          const std::vector<std::size_t>& images);

// Takes the mean of the turns ω (each in its own camera's frame) out of every correction, keeping each
// camera's centre where it is.
void remove_mean_turn(PoseState& state, const std::vector<std::size_t>& images);

// The rate at `step` of `steps`: lr decaying exponentially to lr_final.
double pose_lr(const PoseConfig& config, long step, long steps);

}  // namespace radiant
