#pragma once
// Gradients with respect to a camera's pose (issue 22, pose refinement), written once for the CPU
// reference and the CUDA kernels. A pose change is taken as a rigid motion of the camera frame,
// x_cam' = exp([ε]×)·x_cam + τ: ε turns the camera about its own centre, τ moves it along its own axes.
// The gradient of a render with respect to (ε, τ) at zero is a sum over Gaussians of what each one's
// camera-frame quantities receive; these helpers give each term.
#include "radiant/core/vec.hpp"

namespace radiant {

template <class T>
struct CameraGrads {
    Vec3<T> v_rot, v_trans;  // ∂L/∂ε, ∂L/∂τ
};

// (M₂₁ − M₁₂, M₀₂ − M₂₀, M₁₀ − M₀₁): for any M, tr(M·[ε]×) = −ε·axial(M).
template <class T>
RADIANT_HD Vec3<T> axial(const Mat3<T>& m) {
    return {m.m[2][1] - m.m[1][2], m.m[0][2] - m.m[2][0], m.m[1][0] - m.m[0][1]};
}

// A camera-frame point p with gradient v_p: dp = ε × p + τ.
template <class T>
RADIANT_HD CameraGrads<T> point_camera_grads(Vec3<T> p, Vec3<T> v_p) {
    return {cross(p, v_p), v_p};
}

// A camera-frame covariance Σ with gradient V: dΣ = [ε]×Σ − Σ[ε]×.
template <class T>
RADIANT_HD Vec3<T> covariance_rot_grad(const Mat3<T>& cov, const Mat3<T>& v_cov) {
    return axial(transpose(v_cov) * cov) - axial(cov * transpose(v_cov));
}

// A matrix that takes camera-frame vectors, L_c = L·R_wcᵀ, with gradient V: dL_c = −L_c[ε]×.
template <class T>
RADIANT_HD Vec3<T> right_frame_rot_grad(const Mat3<T>& l_cam, const Mat3<T>& v_l_cam) {
    return axial(transpose(v_l_cam) * l_cam);
}

// The camera centre c = −Rᵀt moves by −Rᵀτ and not with ε; the view direction μ − c of the SH colour
// receives v_view: its share of ∂L/∂τ.
template <class T>
RADIANT_HD Vec3<T> centre_trans_grad(const Mat3<T>& r, Vec3<T> v_view) {
    return r * v_view;
}

// exp([w]×): the rotation by |w| about w (Rodrigues), and the left Jacobian J with
// exp([w + dw]×) ≈ exp([J·dw]×)·exp([w]×), which takes a gradient in ε to one in w: ∂L/∂w = Jᵀ·∂L/∂ε.
template <class T>
RADIANT_HD Mat3<T> skew(Vec3<T> w) {
    Mat3<T> k{};
    k.m[0][1] = -w.z;
    k.m[0][2] = w.y;
    k.m[1][0] = w.z;
    k.m[1][2] = -w.x;
    k.m[2][0] = -w.y;
    k.m[2][1] = w.x;
    return k;
}

template <class T>
RADIANT_HD void so3_coefficients(Vec3<T> w, T& a, T& b, T& c) {
    const T th2 = dot(w, w), th = std::sqrt(th2);
    if (th < T(1e-4)) {  // series: sin θ/θ, (1 − cos θ)/θ², (θ − sin θ)/θ³
        a = T(1) - th2 / T(6);
        b = T(0.5) - th2 / T(24);
        c = T(1) / T(6) - th2 / T(120);
    } else {
        a = std::sin(th) / th;
        b = (T(1) - std::cos(th)) / th2;
        c = (th - std::sin(th)) / (th2 * th);
    }
}

template <class T>
RADIANT_HD Mat3<T> so3_exp(Vec3<T> w) {
    T a, b, c;
    so3_coefficients(w, a, b, c);
    const Mat3<T> k = skew(w);
    return Mat3<T>::identity() + a * k + b * (k * k);
}

template <class T>
RADIANT_HD Mat3<T> so3_left_jacobian(Vec3<T> w) {
    T a, b, c;
    so3_coefficients(w, a, b, c);
    const Mat3<T> k = skew(w);
    return Mat3<T>::identity() + b * k + c * (k * k);
}

}  // namespace radiant
