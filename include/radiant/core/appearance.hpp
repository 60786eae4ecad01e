#pragma once
// Per-image appearance (issue 22): the colour transform a training image's exposure and white balance put
// between the scene's radiance and its pixels, learned beside the scene and applied to the render before
// the loss. Two models, written once for the CPU reference and the CUDA kernels:
//   exposure   one affine 3×4 colour transform per image (Inria 3DGS 2024's exposure compensation);
//   bilateral  a bilateral grid per image (gsplat's and LichtFeld's): 16×16 cells over the image × 8 over
//              luminance, each holding a 3×4 affine transform, sliced trilinearly at (x, y, luminance of
//              the render) — a transform that may vary smoothly across the image and with brightness.
// Affine transforms are row-major: out_c = Σ_k A[4c+k]·rgb_k + A[4c+3]. Grid cell (x, y, z) holds its 12
// values at ((z·kGridY + y)·kGridX + x)·12. Identity everywhere is "no change".
#include <cstdint>

#include "radiant/core/hd.hpp"

namespace radiant {

enum class AppearanceModel { off, exposure, bilateral };

constexpr int kAffineParams = 12;
constexpr int kGridX = 16, kGridY = 16, kGridZ = 8;
constexpr int kGridParams = kGridX * kGridY * kGridZ * kAffineParams;

// Parameters one image holds.
RADIANT_HD int appearance_params(AppearanceModel m) {
    return m == AppearanceModel::exposure ? kAffineParams
                                          : (m == AppearanceModel::bilateral ? kGridParams : 0);
}

// The identity's value at parameter j of any model (every model is affine transforms back to back).
RADIANT_HD float appearance_identity(int j) {
    const int k = j % kAffineParams;
    return k % 4 == k / 4 ? 1.f : 0.f;
}

template <class T>
RADIANT_HD void affine_apply(const T* a, const T* rgb, T* out) {
    RADIANT_UNROLL
    for (int c = 0; c < 3; ++c)
        out[c] = a[4 * c] * rgb[0] + a[4 * c + 1] * rgb[1] + a[4 * c + 2] * rgb[2] + a[4 * c + 3];
}

// ∂/∂A of v_out·(A·[rgb, 1]): the outer product v_out ⊗ [rgb, 1].
template <class T>
RADIANT_HD void affine_param_vjp(const T* rgb, const T* v_out, T* v_a) {
    RADIANT_UNROLL
    for (int c = 0; c < 3; ++c) {
        v_a[4 * c] = v_out[c] * rgb[0];
        v_a[4 * c + 1] = v_out[c] * rgb[1];
        v_a[4 * c + 2] = v_out[c] * rgb[2];
        v_a[4 * c + 3] = v_out[c];
    }
}

// ∂/∂rgb of v_out·(A·[rgb, 1]) = Aᵀ v_out over the first three columns.
template <class T>
RADIANT_HD void affine_rgb_vjp(const T* a, const T* v_out, T* v_rgb) {
    RADIANT_UNROLL
    for (int k = 0; k < 3; ++k) v_rgb[k] = a[k] * v_out[0] + a[4 + k] * v_out[1] + a[8 + k] * v_out[2];
}

// Luminance, the grid's third coordinate (Rec. 601 weights, as gsplat's slice).
constexpr float kLumR = 0.299f, kLumG = 0.587f, kLumB = 0.114f;

// Where a pixel falls in the grid: the lower corner of its cell, the fractions towards the upper corner,
// and whether the luminance lies inside [0, 1] (outside, it is clamped and has no gradient).
template <class T>
struct GridPoint {
    int x0, y0, z0;
    T fx, fy, fz;
    bool lum_inside;
};

template <class T>
RADIANT_HD int grid_floor_cell(T coord, int size) {
    int i = int(coord);  // coord ≥ 0
    return i > size - 2 ? size - 2 : i;
}

// Pixel (px, py) of a w × h image whose render is rgb. Pixel centres map to [0, 1] across the image.
template <class T>
RADIANT_HD GridPoint<T> grid_point(int px, int py, int w, int h, const T* rgb) {
    GridPoint<T> g;
    const T u = (T(px) + T(0.5)) / T(w) * T(kGridX - 1), v = (T(py) + T(0.5)) / T(h) * T(kGridY - 1);
    const T lum = T(kLumR) * rgb[0] + T(kLumG) * rgb[1] + T(kLumB) * rgb[2];
    g.lum_inside = lum > T(0) && lum < T(1);
    const T l = (lum < T(0) ? T(0) : (lum > T(1) ? T(1) : lum)) * T(kGridZ - 1);
    g.x0 = grid_floor_cell(u, kGridX);
    g.y0 = grid_floor_cell(v, kGridY);
    g.z0 = grid_floor_cell(l, kGridZ);
    g.fx = u - T(g.x0);
    g.fy = v - T(g.y0);
    g.fz = l - T(g.z0);
    return g;
}

RADIANT_HD int grid_corner_offset(int x, int y, int z) {
    return ((z * kGridY + y) * kGridX + x) * kAffineParams;
}

// Corner c (bits: x, y, z) of a point's cell: its parameter offset, trilinear weight and ∂weight/∂l.
template <class T>
RADIANT_HD int grid_corner(const GridPoint<T>& g, int c, T& weight, T& d_weight_dl) {
    const int dx = c & 1, dy = (c >> 1) & 1, dz = c >> 2;
    const T wx = dx ? g.fx : T(1) - g.fx, wy = dy ? g.fy : T(1) - g.fy, wz = dz ? g.fz : T(1) - g.fz;
    weight = wx * wy * wz;
    d_weight_dl = wx * wy * (dz ? T(1) : T(-1));
    return grid_corner_offset(g.x0 + dx, g.y0 + dy, g.z0 + dz);
}

// The affine transform the grid gives a point (trilinear blend of its cell's 8 corners), and its
// derivative along the luminance coordinate l.
template <class T>
RADIANT_HD void grid_slice(const T* grid, const GridPoint<T>& g, T* a, T* da_dl) {
    RADIANT_UNROLL
    for (int j = 0; j < kAffineParams; ++j) a[j] = da_dl[j] = T(0);
    RADIANT_UNROLL
    for (int c = 0; c < 8; ++c) {
        T w, dw;
        const T* corner = grid + grid_corner(g, c, w, dw);
        RADIANT_UNROLL
        for (int j = 0; j < kAffineParams; ++j) {
            a[j] += w * corner[j];
            da_dl[j] += dw * corner[j];
        }
    }
}

// One pixel through an image's appearance: `params` are that image's parameters.
template <class T>
RADIANT_HD void appearance_apply(AppearanceModel m, const T* params, int px, int py, int w, int h,
                                 const T* rgb, T* out) {
    if (m == AppearanceModel::exposure) {
        affine_apply(params, rgb, out);
    } else if (m == AppearanceModel::bilateral) {
        T a[kAffineParams], da[kAffineParams];
        grid_slice(params, grid_point(px, py, w, h, rgb), a, da);
        affine_apply(a, rgb, out);
    } else {
        out[0] = rgb[0];
        out[1] = rgb[1];
        out[2] = rgb[2];
    }
}

// The VJP of appearance_apply: v_rgb = ∂(v_out·out)/∂rgb, and add(j, g) called with ∂(v_out·out)/∂params[j]
// for every parameter the pixel touches (12 for exposure, 8 corners × 12 for the grid). The grid's
// luminance coordinate depends on rgb, so v_rgb carries that path too.
template <class T, class Add>
RADIANT_HD void appearance_vjp(AppearanceModel m, const T* params, int px, int py, int w, int h, const T* rgb,
                               const T* v_out, T* v_rgb, Add&& add) {
    T v_a[kAffineParams];
    affine_param_vjp(rgb, v_out, v_a);
    if (m == AppearanceModel::exposure) {
        affine_rgb_vjp(params, v_out, v_rgb);
        RADIANT_UNROLL
        for (int j = 0; j < kAffineParams; ++j) add(j, v_a[j]);
    } else if (m == AppearanceModel::bilateral) {
        const GridPoint<T> g = grid_point(px, py, w, h, rgb);
        T a[kAffineParams], da[kAffineParams];
        grid_slice(params, g, a, da);
        affine_rgb_vjp(a, v_out, v_rgb);
        if (g.lum_inside) {
            T s = T(0);
            RADIANT_UNROLL
            for (int j = 0; j < kAffineParams; ++j) s += v_a[j] * da[j];
            s *= T(kGridZ - 1);
            v_rgb[0] += s * T(kLumR);
            v_rgb[1] += s * T(kLumG);
            v_rgb[2] += s * T(kLumB);
        }
        RADIANT_UNROLL
        for (int c = 0; c < 8; ++c) {
            T wgt, dw;
            const int offset = grid_corner(g, c, wgt, dw);
            RADIANT_UNROLL
            for (int j = 0; j < kAffineParams; ++j) add(offset + j, wgt * v_a[j]);
        }
    } else {
        v_rgb[0] = v_out[0];
        v_rgb[1] = v_out[1];
        v_rgb[2] = v_out[2];
    }
}

// The regulariser of one image's parameters, element j's share: its value (summed over j gives the term)
// and its gradient. exposure: weight · mean over the 12 values of (A − I)², which holds each transform
// near the identity so the scene keeps the images' common colour. bilateral: weight · total variation as
// gsplat's (for each axis, the mean squared difference of neighbouring cells' values, summed over axes),
// which keeps the grid smooth.
template <class T>
RADIANT_HD T appearance_reg_element(AppearanceModel m, const T* params, int j, T weight, T& grad) {
    if (m == AppearanceModel::exposure) {
        const T d = params[j] - T(appearance_identity(j));
        grad = weight * T(2) * d / T(kAffineParams);
        return weight * d * d / T(kAffineParams);
    }
    grad = T(0);
    if (m != AppearanceModel::bilateral) return T(0);
    const int cell = j / kAffineParams;
    const int x = cell % kGridX, y = cell / kGridX % kGridY, z = cell / (kGridX * kGridY);
    const int pos[3] = {x, y, z}, size[3] = {kGridX, kGridY, kGridZ};
    const int stride[3] = {kAffineParams, kGridX * kAffineParams, kGridX * kGridY * kAffineParams};
    T value = T(0);
    RADIANT_UNROLL
    for (int axis = 0; axis < 3; ++axis) {
        // pairs along this axis: (size − 1) × the other two sizes × 12 values
        const T pairs = T((size[axis] - 1) * (kGridX * kGridY * kGridZ / size[axis]) * kAffineParams);
        if (pos[axis] + 1 < size[axis]) {
            const T d = params[j + stride[axis]] - params[j];
            value += weight * d * d / pairs;
            grad -= weight * T(2) * d / pairs;
        }
        if (pos[axis] > 0) {
            const T d = params[j] - params[j - stride[axis]];
            grad += weight * T(2) * d / pairs;
        }
    }
    return value;
}

}  // namespace radiant
