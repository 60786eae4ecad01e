// Densification on the GPU: statistics, ADC clone/split/prune, opacity reset, MCMC relocation, growth and
// noise. The per-Gaussian rules are core/densify_rules.hpp, the functions the CPU plan uses.
#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"

namespace radiant::cuda {
namespace {

constexpr int kBlock = 256;

unsigned blocks_for(std::size_t n) {
    return unsigned((n + kBlock - 1) / kBlock);
}

__device__ __forceinline__ std::size_t thread_index() {
    return std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ Vec3<float> load3(const float* p, std::size_t i) {
    return {p[3 * i], p[3 * i + 1], p[3 * i + 2]};
}
__device__ __forceinline__ void store3(float* p, std::size_t i, Vec3<float> v) {
    p[3 * i] = v.x;
    p[3 * i + 1] = v.y;
    p[3 * i + 2] = v.z;
}
__device__ __forceinline__ Vec4<float> load4(const float* p, std::size_t i) {
    const float4 q = reinterpret_cast<const float4*>(p)[i];
    return {q.x, q.y, q.z, q.w};
}

// Copies Gaussian `from` of `src` to slot `to` of `dst` (all five arrays).
__device__ void copy_gaussian(const GaussianArrays& src, std::size_t from, const GaussianArrays& dst,
                              std::size_t to, int sh_coeffs) {
    for (int c = 0; c < 3; ++c) {
        dst.means[3 * to + c] = src.means[3 * from + c];
        dst.log_scales[3 * to + c] = src.log_scales[3 * from + c];
    }
    reinterpret_cast<float4*>(dst.quats)[to] = reinterpret_cast<const float4*>(src.quats)[from];
    dst.opacity_logits[to] = src.opacity_logits[from];
    const std::size_t k = std::size_t(sh_coeffs) * 3;
    for (std::size_t j = 0; j < k; ++j) dst.sh[to * k + j] = src.sh[from * k + j];
}

__device__ void zero_gaussian(const GaussianArrays& dst, std::size_t to, int sh_coeffs) {
    for (int c = 0; c < 3; ++c) dst.means[3 * to + c] = dst.log_scales[3 * to + c] = 0.f;
    reinterpret_cast<float4*>(dst.quats)[to] = make_float4(0.f, 0.f, 0.f, 0.f);
    dst.opacity_logits[to] = 0.f;
    const std::size_t k = std::size_t(sh_coeffs) * 3;
    for (std::size_t j = 0; j < k; ++j) dst.sh[to * k + j] = 0.f;
}

__global__ void mcmc_regularisers_kernel(GaussianArrays p, GaussianArrays g, std::size_t n, float count,
                                         float opacity_reg, float scale_reg, double* sums) {
    const std::size_t i = thread_index();
    float o = 0.f, s = 0.f;
    if (i < n) {
        o = sigmoid(p.opacity_logits[i]);
        g.opacity_logits[i] += opacity_reg / count * o * (1.f - o);
        for (int c = 0; c < 3; ++c) {
            const float sc = expf(p.log_scales[3 * i + c]);
            g.log_scales[3 * i + c] += scale_reg / (3.f * count) * sc;
            s += sc;
        }
    }
    for (int off = 16; off > 0; off >>= 1) {
        o += __shfl_down_sync(0xffffffffu, o, off);
        s += __shfl_down_sync(0xffffffffu, s, off);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&sums[kSumOpacity], double(o));
        atomicAdd(&sums[kSumScale], double(s));
    }
}

__global__ void accumulate_stats_kernel(DensifyStatsView st, const float* norms, const int* radii,
                                        std::size_t n, double* sums) {
    const std::size_t i = thread_index();
    unsigned visible = 0;
    if (i < n && radii[i] > 0) {
        st.grad_accum[i] += norms[i];
        st.denom[i] += 1;
        st.max_radii[i] = fmaxf(st.max_radii[i], float(radii[i]));
        visible = 1;
    }
    const unsigned warp = __popc(__ballot_sync(0xffffffffu, visible));
    if ((threadIdx.x & 31) == 0 && warp) atomicAdd(&sums[kSumVisible], double(warp));
}

__global__ void adc_actions_kernel(GaussianArrays p, DensifyStatsView st, std::size_t n, AdcRule rule,
                                   std::uint32_t* actions, std::uint32_t* counts, std::uint32_t* totals) {
    const std::size_t i = thread_index();
    if (i > n) return;
    if (i == n) {
        counts[n] = 0;  // the exclusive scan's last element is then the new size
        return;
    }
    const float max_log_scale =
        fmaxf(p.log_scales[3 * i], fmaxf(p.log_scales[3 * i + 1], p.log_scales[3 * i + 2]));
    const std::uint32_t a =
        adc_action(st.grad_accum[i], st.denom[i], st.max_radii[i], max_log_scale, p.opacity_logits[i], rule);
    actions[i] = a;
    counts[i] = std::uint32_t(adc_outputs(a));
    if (a & kAdcClone) atomicAdd(&totals[0], 1u);
    if (a & kAdcSplit) atomicAdd(&totals[1], 1u);
    if (a & kAdcPrune) atomicAdd(&totals[2], 1u);
}

__global__ void adc_write_kernel(GaussianArrays p, GaussianArrays m, GaussianArrays v, GaussianArrays op,
                                 GaussianArrays om, GaussianArrays ov, std::size_t n, int sh_coeffs,
                                 const std::uint32_t* actions, const std::uint32_t* offsets,
                                 std::uint64_t seed, const std::uint64_t* keys) {
    const std::size_t i = thread_index();
    if (i >= n) return;
    const std::uint32_t a = actions[i];
    const std::uint64_t key = keys ? keys[i] : std::uint64_t(i);
    std::size_t o = offsets[i];
    if (a & kAdcSplit) {
        for (int copy = 0; copy < 2; ++copy, ++o) {
            copy_gaussian(p, i, op, o, sh_coeffs);
            Vec3<float> mean, log_scale;
            split_child(load3(p.means, i), load3(p.log_scales, i), load4(p.quats, i), seed, key, copy, mean,
                        log_scale);
            store3(op.means, o, mean);
            store3(op.log_scales, o, log_scale);
            zero_gaussian(om, o, sh_coeffs);
            zero_gaussian(ov, o, sh_coeffs);
        }
        return;
    }
    if (!(a & kAdcPrune)) {
        copy_gaussian(p, i, op, o, sh_coeffs);
        copy_gaussian(m, i, om, o, sh_coeffs);
        copy_gaussian(v, i, ov, o, sh_coeffs);
        ++o;
    }
    if (a & kAdcClone) {
        copy_gaussian(p, i, op, o, sh_coeffs);
        zero_gaussian(om, o, sh_coeffs);
        zero_gaussian(ov, o, sh_coeffs);
    }
}

__global__ void reset_opacity_kernel(float* logits, float* m, float* v, std::size_t n, float cap) {
    const std::size_t i = thread_index();
    if (i >= n) return;
    logits[i] = fminf(logits[i], cap);
    m[i] = v[i] = 0.f;
}

__global__ void mcmc_weights_kernel(const float* logits, std::size_t n, float min_opacity, double* alive,
                                    double* all, std::uint32_t* dead) {
    const std::size_t i = thread_index();
    if (i >= n) return;
    const float o = sigmoid(logits[i]);
    const bool d = o <= min_opacity;
    dead[i] = d ? 1u : 0u;
    alive[i] = d ? 0.0 : double(o);
    all[i] = double(o);
}

__global__ void scatter_flagged_kernel(const std::uint32_t* flags, const std::uint32_t* offsets,
                                       std::size_t n, std::int32_t* out) {
    const std::size_t i = thread_index();
    if (i < n && flags[i]) out[offsets[i]] = std::int32_t(i);
}

__global__ void sample_by_cdf_kernel(const double* cdf, std::size_t n, double total, std::size_t count,
                                     std::uint64_t seed, std::uint64_t counter0, std::int32_t* sources,
                                     std::uint32_t* copies) {
    const std::size_t k = thread_index();
    if (k >= count) return;
    const double u = uniform01(seed, counter0 + k) * total;
    std::size_t lo = 0, hi = n;  // first index with cdf > u (upper_bound)
    while (lo < hi) {
        const std::size_t mid = (lo + hi) / 2;
        if (cdf[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    const std::size_t s = lo < n ? lo : n - 1;
    sources[k] = std::int32_t(s);
    atomicAdd(&copies[s], 1u);
}

__global__ void mcmc_correct_kernel(GaussianArrays p, GaussianArrays m, GaussianArrays v, std::size_t n,
                                    int sh_coeffs, const std::uint32_t* copies) {
    const std::size_t i = thread_index();
    if (i >= n || copies[i] == 0) return;
    double o_new, factor;
    mcmc_correction(double(sigmoid(p.opacity_logits[i])), int(copies[i]) + 1, o_new, factor);
    o_new = fmin(fmax(o_new, 0.005), 1.0 - 1e-6);
    p.opacity_logits[i] = float(logit(o_new));
    const float log_factor = float(log(factor));
    for (int c = 0; c < 3; ++c) p.log_scales[3 * i + c] += log_factor;
    zero_gaussian(m, i, sh_coeffs);
    zero_gaussian(v, i, sh_coeffs);
}

__global__ void copy_gaussians_kernel(GaussianArrays p, GaussianArrays m, GaussianArrays v, int sh_coeffs,
                                      const std::int32_t* dst, std::size_t dst_base, const std::int32_t* src,
                                      std::size_t count) {
    const std::size_t k = thread_index();
    if (k >= count) return;
    const std::size_t to = dst ? std::size_t(dst[k]) : dst_base + k;
    copy_gaussian(p, std::size_t(src[k]), p, to, sh_coeffs);
    zero_gaussian(m, to, sh_coeffs);
    zero_gaussian(v, to, sh_coeffs);
}

__global__ void mcmc_noise_kernel(GaussianArrays p, std::size_t n, float scale, std::uint64_t seed,
                                  const std::uint64_t* keys) {
    const std::size_t i = thread_index();
    if (i >= n) return;
    const Vec3<float> d = mcmc_noise_offset(load3(p.log_scales, i), load4(p.quats, i), p.opacity_logits[i],
                                            scale, seed, keys ? keys[i] : std::uint64_t(i));
    store3(p.means, i, load3(p.means, i) + d);
}

// Row j of `out` (parameters and both moments) is row from[j] of `a` when from[j] < na, else row
// from[j] − na of `b`.
__global__ void gather_gaussians_kernel(GaussianArrays a, GaussianArrays am, GaussianArrays av,
                                        std::size_t na, GaussianArrays b, GaussianArrays bm,
                                        GaussianArrays bv, const std::uint32_t* from, std::size_t count,
                                        int sh_coeffs, GaussianArrays out, GaussianArrays om,
                                        GaussianArrays ov) {
    const std::size_t j = thread_index();
    if (j >= count) return;
    const std::size_t f = from[j];
    const bool first = f < na;
    const std::size_t row = first ? f : f - na;
    copy_gaussian(first ? a : b, row, out, j, sh_coeffs);
    copy_gaussian(first ? am : bm, row, om, j, sh_coeffs);
    copy_gaussian(first ? av : bv, row, ov, j, sh_coeffs);
}

}  // namespace

void launch_mcmc_regularisers(GaussianArrays params, GaussianArrays grads, std::size_t n, double count,
                              float opacity_reg, float scale_reg, double* sums, cudaStream_t stream) {
    if (n == 0) return;
    mcmc_regularisers_kernel<<<blocks_for(n), kBlock, 0, stream>>>(params, grads, n, float(count),
                                                                   opacity_reg, scale_reg, sums);
    RADIANT_CUDA_CHECK_LAUNCH("mcmc_regularisers_kernel");
}

void launch_accumulate_stats(DensifyStatsView stats, const float* norms, const int* radii, std::size_t n,
                             double* sums, cudaStream_t stream) {
    if (n == 0) return;
    accumulate_stats_kernel<<<blocks_for(n), kBlock, 0, stream>>>(stats, norms, radii, n, sums);
    RADIANT_CUDA_CHECK_LAUNCH("accumulate_stats_kernel");
}

void launch_adc_actions(GaussianArrays params, DensifyStatsView stats, std::size_t n, const AdcRule& rule,
                        std::uint32_t* actions, std::uint32_t* counts, std::uint32_t* totals,
                        cudaStream_t stream) {
    adc_actions_kernel<<<blocks_for(n + 1), kBlock, 0, stream>>>(params, stats, n, rule, actions, counts,
                                                                 totals);
    RADIANT_CUDA_CHECK_LAUNCH("adc_actions_kernel");
}

void launch_adc_write(GaussianArrays params, GaussianArrays m, GaussianArrays v, GaussianArrays out_params,
                      GaussianArrays out_m, GaussianArrays out_v, std::size_t n, int sh_coeffs,
                      const std::uint32_t* actions, const std::uint32_t* offsets, std::uint64_t seed,
                      const std::uint64_t* keys, cudaStream_t stream) {
    if (n == 0) return;
    adc_write_kernel<<<blocks_for(n), kBlock, 0, stream>>>(params, m, v, out_params, out_m, out_v, n,
                                                           sh_coeffs, actions, offsets, seed, keys);
    RADIANT_CUDA_CHECK_LAUNCH("adc_write_kernel");
}

void launch_reset_opacity(float* opacity_logits, float* m, float* v, std::size_t n, float cap_logit,
                          cudaStream_t stream) {
    if (n == 0) return;
    reset_opacity_kernel<<<blocks_for(n), kBlock, 0, stream>>>(opacity_logits, m, v, n, cap_logit);
    RADIANT_CUDA_CHECK_LAUNCH("reset_opacity_kernel");
}

void launch_mcmc_weights(const float* opacity_logits, std::size_t n, float min_opacity, double* alive,
                         double* all, std::uint32_t* dead, cudaStream_t stream) {
    if (n == 0) return;
    mcmc_weights_kernel<<<blocks_for(n), kBlock, 0, stream>>>(opacity_logits, n, min_opacity, alive, all,
                                                              dead);
    RADIANT_CUDA_CHECK_LAUNCH("mcmc_weights_kernel");
}

void launch_scatter_flagged(const std::uint32_t* flags, const std::uint32_t* offsets, std::size_t n,
                            std::int32_t* out, cudaStream_t stream) {
    if (n == 0) return;
    scatter_flagged_kernel<<<blocks_for(n), kBlock, 0, stream>>>(flags, offsets, n, out);
    RADIANT_CUDA_CHECK_LAUNCH("scatter_flagged_kernel");
}

void launch_sample_by_cdf(const double* cdf, std::size_t n, double total, std::size_t count,
                          std::uint64_t seed, std::uint64_t counter0, std::int32_t* sources,
                          std::uint32_t* copies, cudaStream_t stream) {
    if (count == 0 || n == 0) return;
    sample_by_cdf_kernel<<<blocks_for(count), kBlock, 0, stream>>>(cdf, n, total, count, seed, counter0,
                                                                   sources, copies);
    RADIANT_CUDA_CHECK_LAUNCH("sample_by_cdf_kernel");
}

void launch_mcmc_correct(GaussianArrays params, GaussianArrays m, GaussianArrays v, std::size_t n,
                         int sh_coeffs, const std::uint32_t* copies, cudaStream_t stream) {
    if (n == 0) return;
    mcmc_correct_kernel<<<blocks_for(n), kBlock, 0, stream>>>(params, m, v, n, sh_coeffs, copies);
    RADIANT_CUDA_CHECK_LAUNCH("mcmc_correct_kernel");
}

void launch_copy_gaussians(GaussianArrays params, GaussianArrays m, GaussianArrays v, int sh_coeffs,
                           const std::int32_t* dst, std::size_t dst_base, const std::int32_t* src,
                           std::size_t count, cudaStream_t stream) {
    if (count == 0) return;
    copy_gaussians_kernel<<<blocks_for(count), kBlock, 0, stream>>>(params, m, v, sh_coeffs, dst, dst_base,
                                                                    src, count);
    RADIANT_CUDA_CHECK_LAUNCH("copy_gaussians_kernel");
}

void launch_mcmc_noise(GaussianArrays params, std::size_t n, float scale, std::uint64_t seed,
                       const std::uint64_t* keys, cudaStream_t stream) {
    if (n == 0) return;
    mcmc_noise_kernel<<<blocks_for(n), kBlock, 0, stream>>>(params, n, scale, seed, keys);
    RADIANT_CUDA_CHECK_LAUNCH("mcmc_noise_kernel");
}

void launch_gather_gaussians(GaussianMoments a, std::size_t na, GaussianMoments b, const std::uint32_t* from,
                             std::size_t count, int sh_coeffs, GaussianMoments out, cudaStream_t stream) {
    if (count == 0) return;
    gather_gaussians_kernel<<<blocks_for(count), kBlock, 0, stream>>>(
        a.params, a.m, a.v, na, b.params, b.m, b.v, from, count, sh_coeffs, out.params, out.m, out.v);
    RADIANT_CUDA_CHECK_LAUNCH("gather_gaussians_kernel");
}

}  // namespace radiant::cuda
