#pragma once
// The two shading models as the raster kernels see them (DESIGN.md §2), so one forward and one backward
// kernel serve both: each model names
//   Splat     one Gaussian's raster inputs but its colour (fetch: from global memory by id),
//   Batch     the shared-memory batch a tile's list is streamed through, one Gaussian per thread (get(j):
//             its Splat, colour_of(j): its colour, read only for a hit),
//   Pixel     what a pixel brings (pixel(): false when it has no ray and stays background),
//   Hit       what α's evaluation leaves for the gradient,
//   alpha()   α of a (Gaussian, pixel) pair, false when the hit is skipped (core's rules, as the CPU),
//   kGrads    the floats a hit adds to its Gaussian; hit_grad() computes them back to front from ∂L/∂C,
//             add() adds a set to the Gaussian's accumulators, slot(k) says where value k of a set lives (a
//             warp's scattered sums: each lane adds one value, the same k at every entry).
#include "radiant/core/composite.hpp"
#include "radiant/core/ray_project.hpp"
#include "stages.hpp"

namespace radiant::cuda {

// ∂C/∂c = T α and ∂C/∂α = T (c − D), D the colour behind the hit (DESIGN.md §2); moves D in front of it.
__device__ __forceinline__ float composite_grads(const Vec3<float>& colour, float alpha, float t_before,
                                                 const Vec3<float>& v_c, Vec3<float>& behind,
                                                 Vec3<float>& v_colour) {
    v_colour = (t_before * alpha) * v_c;
    const float v_alpha = t_before * dot(colour - behind, v_c);
    behind = alpha * colour + (1.f - alpha) * behind;
    return v_alpha;
}

// Where one value of every Gaussian's gradient set is accumulated: Gaussian g's at base[g · stride].
struct GradSlot {
    float* base = nullptr;
    int stride = 0;
    __device__ void add(std::uint32_t g, float v) const {
        atomicAdd(base + std::size_t(g) * std::size_t(stride), v);
    }
};

__device__ __forceinline__ Vec3<float> colour_of(const RasterFwdArgs& a, std::uint32_t g) {  // by id
    return {a.colours[3 * g], a.colours[3 * g + 1], a.colours[3 * g + 2]};
}

struct EwaModel {
    struct Splat {
        Vec2<float> mean;
        float4 conic_opacity;
        float extent_sq;
    };
    using Pixel = Vec2<float>;  // its centre
    struct Hit {
        float g;  // exp(power), reused by the gradient
    };
    static constexpr int kGrads = 9;  // mean2d x y, conic a b c, colour r g b, opacity

    template <int N>
    struct Batch {
        float2 mean[N];
        float4 conic_opacity[N];
        float extent[N];
        float3 colour[N];
        std::uint32_t gid[N];
        __device__ void load(int slot, std::uint32_t idx, const RasterFwdArgs& a) {
            const std::uint32_t g = a.isect_gids[idx];
            gid[slot] = g;
            mean[slot] = a.means2d[g];
            conic_opacity[slot] = a.conic_opacity[g];
            extent[slot] = a.extent_sq[g];
            colour[slot] = make_float3(a.colours[3 * g], a.colours[3 * g + 1], a.colours[3 * g + 2]);
        }
        __device__ Splat get(int j) const { return {{mean[j].x, mean[j].y}, conic_opacity[j], extent[j]}; }
        __device__ Vec3<float> colour_of(int j) const { return {colour[j].x, colour[j].y, colour[j].z}; }
    };

    static __device__ Splat fetch(const RasterFwdArgs& a, std::uint32_t g) {
        const float2 m = a.means2d[g];
        return {{m.x, m.y}, a.conic_opacity[g], a.extent_sq[g]};
    }
    static __device__ bool pixel(const RasterFwdArgs&, int x, int y, std::size_t, Pixel& p) {
        p = {float(x) + 0.5f, float(y) + 0.5f};
        return true;
    }
    static __device__ bool alpha(const Splat& s, const Pixel& p, float cutoff, float& alpha, Hit& h) {
        const float4 co = s.conic_opacity;
        return splat_alpha(Sym2<float>{co.x, co.y, co.z}, p - s.mean, co.w, s.extent_sq, cutoff, alpha, h.g);
    }
    static __device__ void hit_grad(const Splat& s, const Vec3<float>& colour, const Pixel& p, const Hit& h,
                                    float alpha, float t_before, const Vec3<float>& v_c, Vec3<float>& behind,
                                    float (&v)[kGrads]) {
        Vec3<float> v_colour;
        const float v_alpha = composite_grads(colour, alpha, t_before, v_c, behind, v_colour);
        const float4 co = s.conic_opacity;
        Sym2<float> v_conic{};
        Vec2<float> v_mean{};
        float v_opacity = 0.f;
        splat_alpha_vjp(Sym2<float>{co.x, co.y, co.z}, p - s.mean, co.w, h.g, v_alpha, v_conic, v_mean,
                        v_opacity);
        v[0] = v_mean.x;
        v[1] = v_mean.y;
        v[2] = v_conic.a;
        v[3] = v_conic.b;
        v[4] = v_conic.c;
        v[5] = v_colour.x;
        v[6] = v_colour.y;
        v[7] = v_colour.z;
        v[8] = v_opacity;
    }
    static __device__ void add(const RasterBwdArgs& a, std::uint32_t g, const float (&v)[kGrads]) {
        atomicAdd(&a.v_means2d[g].x, v[0]);
        atomicAdd(&a.v_means2d[g].y, v[1]);
        for (int k = 0; k < 3; ++k) {
            atomicAdd(&a.v_conics[3 * g + k], v[2 + k]);
            atomicAdd(&a.v_colours[3 * g + k], v[5 + k]);
        }
        atomicAdd(&a.v_opacities[g], v[8]);
    }
    static __device__ GradSlot slot(const RasterBwdArgs& a, int k) {  // value k of add()'s order
        return k < 2   ? GradSlot{&a.v_means2d[0].x + k, 2}
               : k < 5 ? GradSlot{a.v_conics + (k - 2), 3}
               : k < 8 ? GradSlot{a.v_colours + (k - 5), 3}
                       : GradSlot{a.v_opacities, 1};
    }
};

struct RayModel {
    struct Splat {
        Vec3<float> mean;  // camera frame
        float opacity;
        Mat3<float> whitening;  // camera frame
    };
    using Pixel = Vec3<float>;  // its ray (x, y, 1), camera frame
    using Hit = RayResponse<float>;
    static constexpr int kGrads = kRayHitSumsSize;

    // The whitening's nine floats as two float4 and one float, so a slot loads in 16-byte pieces.
    template <int N>
    struct Batch {
        float4 mean_opacity[N];
        float4 l0[N], l1[N];
        float l2[N];
        float3 colour[N];
        std::uint32_t gid[N];
        __device__ void load(int slot, std::uint32_t idx, const RasterFwdArgs& a) {
            const std::uint32_t g = a.isect_gids[idx];
            gid[slot] = g;
            mean_opacity[slot] = a.ray_mean_opacity[g];
            const float* l = a.ray_whitening + 9 * std::size_t(g);
            l0[slot] = make_float4(l[0], l[1], l[2], l[3]);
            l1[slot] = make_float4(l[4], l[5], l[6], l[7]);
            l2[slot] = l[8];
            colour[slot] = make_float3(a.colours[3 * g], a.colours[3 * g + 1], a.colours[3 * g + 2]);
        }
        __device__ Splat get(int j) const {
            const float4 m = mean_opacity[j], a = l0[j], b = l1[j];
            Splat s;
            s.mean = {m.x, m.y, m.z};
            s.opacity = m.w;
            s.whitening.m[0][0] = a.x, s.whitening.m[0][1] = a.y, s.whitening.m[0][2] = a.z;
            s.whitening.m[1][0] = a.w, s.whitening.m[1][1] = b.x, s.whitening.m[1][2] = b.y;
            s.whitening.m[2][0] = b.z, s.whitening.m[2][1] = b.w, s.whitening.m[2][2] = l2[j];
            return s;
        }
        __device__ Vec3<float> colour_of(int j) const { return {colour[j].x, colour[j].y, colour[j].z}; }
    };

    static __device__ Splat fetch(const RasterFwdArgs& a, std::uint32_t g) {
        const float4 m = a.ray_mean_opacity[g];
        Splat s;
        s.mean = {m.x, m.y, m.z};
        s.opacity = m.w;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) s.whitening.m[i][j] = a.ray_whitening[9 * std::size_t(g) + 3 * i + j];
        return s;
    }
    static __device__ bool pixel(const RasterFwdArgs& a, int, int, std::size_t pix, Pixel& p) {
        const float2 d = a.pixel_dirs[pix];
        p = {d.x, d.y, 1.f};
        return !isnan(d.x);
    }
    static __device__ bool alpha(const Splat& s, const Pixel& p, float cutoff, float& alpha, Hit& h) {
        h = ray_response(s.whitening, s.mean, s.opacity, Vec3<float>{}, p);
        alpha = fminf(h.alpha, float(kMaxAlpha));
        return h.in_front && alpha >= cutoff;
    }
    // The clamp at 0.99 passes no gradient to α (as `ewa`'s splat_alpha_vjp).
    static __device__ void hit_grad(const Splat&, const Vec3<float>& colour, const Pixel& p, const Hit& h,
                                    float alpha, float t_before, const Vec3<float>& v_c, Vec3<float>& behind,
                                    float (&v)[kGrads]) {
        RayHitSums<float> sums{};
        float v_alpha = composite_grads(colour, alpha, t_before, v_c, behind, sums.v_colour);
        if (!(h.alpha < float(kMaxAlpha))) v_alpha = 0.f;
        add_ray_hit(h, p, v_alpha, sums);
        store_ray_hit_sums(sums, v);
    }
    static __device__ void add(const RasterBwdArgs& a, std::uint32_t g, const float (&v)[kGrads]) {
        float* out = a.v_ray + kRayHitSumsSize * std::size_t(g);
        for (int k = 0; k < kGrads; ++k) atomicAdd(out + k, v[k]);
    }
    static __device__ GradSlot slot(const RasterBwdArgs& a, int k) { return {a.v_ray + k, kRayHitSumsSize}; }
};

}  // namespace radiant::cuda
