// CudaStep's densification: ADC, opacity reset, MCMC relocation and growth, position noise. Each step is a
// few kernels and scans on the step's stream; only the resulting counts come back to the host.
#include <cub/device/device_scan.cuh>

#include <cmath>

#include "radiant/core/error.hpp"
#include "step_state.hpp"

namespace radiant {

void CudaStep::Impl::exclusive_scan(const std::uint32_t* in, std::uint32_t* out, std::size_t count) {
    std::size_t bytes = 0;
    RADIANT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, count, stream));
    scan_scratch.resize_discard(bytes);
    RADIANT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_scratch.data(), bytes, in, out, count, stream));
}

void CudaStep::Impl::inclusive_scan(const double* in, double* out, std::size_t count) {
    std::size_t bytes = 0;
    RADIANT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, count, stream));
    scan_scratch.resize_discard(bytes);
    RADIANT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(scan_scratch.data(), bytes, in, out, count, stream));
}

void CudaStep::Impl::adc_pass(const AdcRule& rule) {
    actions.resize_discard(n);
    counts.resize_discard(n + 1);
    totals.resize_discard(3);
    totals.zero(stream);
    launch_adc_actions(params.view(), stats_view(), n, rule, actions.data(), counts.data(), totals.data(),
                       stream);
}

void CudaStep::Impl::write_adc(std::size_t out_n, std::uint64_t seed, const std::uint64_t* keys) {
    size_next(out_n);
    launch_adc_write(params.view(), m.view(), v.view(), next_params.view(), next_m.view(), next_v.view(), n,
                     sh_coeff_count(sh_degree), actions.data(), offsets.data(), seed, keys, stream);
    take_next();
}

namespace {

template <class T>
T read_one(const T* device, cudaStream_t stream) {
    T v{};
    RADIANT_CUDA_CHECK(cudaMemcpyAsync(&v, device, sizeof(T), cudaMemcpyDeviceToHost, stream));
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(stream));
    return v;
}

}  // namespace

DensifyTotals CudaStep::densify_adc(const AdcRule& rule_in, std::uint64_t seed, std::size_t max_size) {
    Impl& d = *impl_;
    DensifyTotals t;
    if (d.n == 0) return t;
    d.offsets.resize_discard(d.n + 1);
    AdcRule rule = rule_in;
    std::size_t out_n = 0;
    // At most twice: the rule as given, then (when the result would exceed max_size) the capped threshold,
    // chosen on the host from the statistics — a download on capped densification steps only.
    for (int pass = 0; pass < 2; ++pass) {
        d.adc_pass(rule);
        d.exclusive_scan(d.counts.data(), d.offsets.data(), d.n + 1);
        std::uint32_t host[4];
        RADIANT_CUDA_CHECK(cudaMemcpyAsync(host, d.totals.data(), 3 * sizeof(std::uint32_t),
                                           cudaMemcpyDeviceToHost, d.stream));
        RADIANT_CUDA_CHECK(cudaMemcpyAsync(host + 3, d.offsets.data() + d.n, sizeof(std::uint32_t),
                                           cudaMemcpyDeviceToHost, d.stream));
        RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
        t.clone = host[0];
        t.split = host[1];
        t.prune = host[2];
        out_n = host[3];
        if (pass == 1 || max_size == 0 || out_n <= max_size) break;
        t.capped = true;
        rule.grad_threshold =
            adc_capped_threshold(d.grad_accum.download(d.stream), d.denom.download(d.stream),
                                 d.actions.download(d.stream), rule.grad_threshold, max_size);
    }
    d.write_adc(out_n, seed, nullptr);
    return t;
}

void CudaStep::reset_opacity(double value) {
    Impl& d = *impl_;
    launch_reset_opacity(d.params.opacity_logits.data(), d.m.opacity_logits.data(), d.v.opacity_logits.data(),
                         d.n, float(logit(value)), d.stream);
    d.reset_stats();
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
}

DensifyTotals CudaStep::densify_mcmc(const McmcConfig& c, std::uint64_t seed) {
    Impl& d = *impl_;
    DensifyTotals t;
    const std::size_t n = d.n;
    if (n == 0) return t;
    const int k = sh_coeff_count(d.sh_degree);
    d.cdf_alive.resize_discard(n);
    d.cdf_all.resize_discard(n);
    d.counts.resize_discard(n + 1);
    d.offsets.resize_discard(n + 1);
    d.copies.resize_discard(n);
    d.copies.zero(d.stream);
    // Opacity weights (scanned in place into CDFs) and dead flags (scanned into compaction offsets).
    launch_mcmc_weights(d.params.opacity_logits.data(), n, float(c.min_opacity), d.cdf_alive.data(),
                        d.cdf_all.data(), d.counts.data(), d.stream);
    RADIANT_CUDA_CHECK(cudaMemsetAsync(d.counts.data() + n, 0, sizeof(std::uint32_t), d.stream));
    d.inclusive_scan(d.cdf_alive.data(), d.cdf_alive.data(), n);
    d.inclusive_scan(d.cdf_all.data(), d.cdf_all.data(), n);
    d.exclusive_scan(d.counts.data(), d.offsets.data(), n + 1);
    const std::size_t dead = read_one(d.offsets.data() + n, d.stream);
    const double alive_total = read_one(d.cdf_alive.data() + n - 1, d.stream);
    const double all_total = read_one(d.cdf_all.data() + n - 1, d.stream);
    const std::size_t relocate = alive_total > 0 ? dead : 0;
    const std::size_t target = mcmc_target_size(n, c);
    const std::size_t add = all_total > 0 ? target - n : 0;

    d.dead_ids.resize_discard(dead);
    launch_scatter_flagged(d.counts.data(), d.offsets.data(), n, d.dead_ids.data(), d.stream);
    d.sources.resize_discard(relocate + add);
    launch_sample_by_cdf(d.cdf_alive.data(), n, alive_total, relocate, seed, 0, d.sources.data(),
                         d.copies.data(), d.stream);
    launch_sample_by_cdf(d.cdf_all.data(), n, all_total, add, seed, kMcmcGrowCounter,
                         d.sources.data() + relocate, d.copies.data(), d.stream);
    launch_mcmc_correct(d.params.view(), d.m.view(), d.v.view(), n, k, d.copies.data(), d.stream);
    launch_copy_gaussians(d.params.view(), d.m.view(), d.v.view(), k, d.dead_ids.data(), 0, d.sources.data(),
                          relocate, d.stream);
    if (add > 0) {
        const std::size_t out_n = n + add;
        for (auto [from, to] : {std::pair{&d.params, &d.next_params}, {&d.m, &d.next_m}, {&d.v, &d.next_v}}) {
            to->resize_discard(out_n, d.sh_degree);
            to->copy_prefix(*from, n, d.sh_degree, d.stream);
            from->swap(*to);
        }
        launch_copy_gaussians(d.params.view(), d.m.view(), d.v.view(), k, nullptr, n,
                              d.sources.data() + relocate, add, d.stream);
        d.n = out_n;
    }
    d.resized();
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
    t.relocate = relocate;
    t.add = add;
    return t;
}

void CudaStep::add_noise(double scale, std::uint64_t seed, const std::uint64_t* keys) {
    Impl& d = *impl_;
    launch_mcmc_noise(d.params.view(), d.n, float(scale), seed, keys, d.stream);
}

}  // namespace radiant
