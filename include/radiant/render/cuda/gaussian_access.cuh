#pragma once
// Device helpers shared by the render layer's kernels and the layers above that fuse their own per-Gaussian
// work with the geometry backward (training's optimizer step): one Gaussian's parameters into registers, and
// the ewa model's per-Gaussian backward from the footprint gradients (core's VJP). CUDA-only header.
#include "radiant/core/camera_grad.hpp"
#include "radiant/core/densify_rules.hpp"
#include "radiant/core/project.hpp"
#include "radiant/render/cuda/rasterizer.hpp"

namespace radiant::cuda {

// One Gaussian's SH coefficients (3·K floats) between global memory and a register array, 16 bytes at a
// time when the row allows it (K = 4 or 16: rows of 48 or 192 bytes, 16-byte aligned).
__device__ __forceinline__ void load_sh(const float* src, int k3, float* dst) {
    if (k3 % 4 == 0) {
        RADIANT_UNROLL
        for (int i = 0; i < 3 * kMaxShCoeffs / 4; ++i)
            if (4 * i < k3) {
                const float4 v = reinterpret_cast<const float4*>(src)[i];
                dst[4 * i] = v.x, dst[4 * i + 1] = v.y, dst[4 * i + 2] = v.z, dst[4 * i + 3] = v.w;
            }
    } else {
        RADIANT_UNROLL
        for (int i = 0; i < 3 * kMaxShCoeffs; ++i)
            if (i < k3) dst[i] = src[i];
    }
}
__device__ __forceinline__ void store_sh(const float* src, int k3, float* dst) {
    if (k3 % 4 == 0) {
        RADIANT_UNROLL
        for (int i = 0; i < 3 * kMaxShCoeffs / 4; ++i)
            if (4 * i < k3)
                reinterpret_cast<float4*>(dst)[i] =
                    make_float4(src[4 * i], src[4 * i + 1], src[4 * i + 2], src[4 * i + 3]);
    } else {
        RADIANT_UNROLL
        for (int i = 0; i < 3 * kMaxShCoeffs; ++i)
            if (i < k3) dst[i] = src[i];
    }
}

// One Gaussian's parameters but its SH (p.sh is null) from scene arrays (anything with means, log_scales,
// quats and opacity_logits).
template <class Arrays>
__device__ __forceinline__ GaussianParams<float> load_gaussian_geometry(const Arrays& a, int g) {
    GaussianParams<float> p;
    p.mean = {a.means[3 * g], a.means[3 * g + 1], a.means[3 * g + 2]};
    p.log_scale = {a.log_scales[3 * g], a.log_scales[3 * g + 1], a.log_scales[3 * g + 2]};
    p.quat = {a.quats[4 * g], a.quats[4 * g + 1], a.quats[4 * g + 2], a.quats[4 * g + 3]};
    p.opacity_logit = a.opacity_logits[g];
    p.sh = nullptr;
    return p;
}

// Gaussian g's SH (arrays with sh and sh_coeffs) into `sh`, a register array of 3·kMaxShCoeffs.
template <class Arrays>
__device__ __forceinline__ void load_gaussian_sh(const Arrays& a, int g, float* sh) {
    load_sh(a.sh + std::size_t(g) * std::size_t(a.sh_coeffs) * 3, 3 * a.sh_coeffs, sh);
}

// One Gaussian's parameters, its SH into `sh` (load_gaussian_sh).
template <class Arrays>
__device__ __forceinline__ GaussianParams<float> load_gaussian(const Arrays& a, int g, float* sh) {
    GaussianParams<float> p = load_gaussian_geometry(a, g);
    load_gaussian_sh(a, g, sh);
    p.sh = sh;
    return p;
}

// The ewa geometry backward of visible Gaussian g (radius > 0) with parameters p: the gradient of every
// parameter (v_sh, a zeroed register array, added into; null when only sh_source is wanted), its share of
// the camera pose gradient when `cam` is not null, what v_sh is made of when `sh_source` is not null, and its
// 2D-gradient norm for densification.
__device__ __forceinline__ GaussianGrads<float> ewa_gaussian_bwd(const EwaFootprintGrads& fp,
                                                                 const GaussianParams<float>& p, int g,
                                                                 float* v_sh, CameraGrads<float>* cam,
                                                                 float& mean2d_norm,
                                                                 ShGradSource<float>* sh_source = nullptr) {
    Footprint<float> f{};
    const float4 co = fp.conic_opacity[g];
    f.conic = {co.x, co.y, co.z};
    f.opacity = co.w;
    FootprintGrads<float> v;
    v.v_mean2d = {fp.v_means2d[g].x, fp.v_means2d[g].y};
    v.v_conic = {fp.v_conics[3 * g], fp.v_conics[3 * g + 1], fp.v_conics[3 * g + 2]};
    v.v_colour = {fp.v_colours[3 * g], fp.v_colours[3 * g + 1], fp.v_colours[3 * g + 2]};
    v.v_opacity = fp.v_opacities[g];
    mean2d_norm = mean2d_grad_norm(v.v_mean2d, fp.ps.cam.width, fp.ps.cam.height);
    return project_ewa_gaussian_vjp(p, fp.ps, f, v, v_sh, cam, sh_source);
}

// The camera pose gradient summed over Gaussians: each warp adds its threads' shares (core/camera_grad.hpp),
// then one lane adds the warp's sum into the six accumulators. Every thread of the warp must call it.
__device__ inline void add_camera_grads(const CameraGrads<float>& c, double* out) {
    float v[6] = {c.v_rot.x, c.v_rot.y, c.v_rot.z, c.v_trans.x, c.v_trans.y, c.v_trans.z};
#pragma unroll
    for (int k = 0; k < 6; ++k)
        for (int offset = 16; offset > 0; offset >>= 1) v[k] += __shfl_down_sync(0xffffffffu, v[k], offset);
    if ((threadIdx.x & 31) == 0)
        for (int k = 0; k < 6; ++k)
            if (v[k] != 0.f) atomicAdd(out + k, double(v[k]));
}

}  // namespace radiant::cuda
