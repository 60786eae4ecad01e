// CudaStep's side of densification over ranks (issue 25): the decisions are taken on the host over every
// rank's Gaussians (distributed/densify_ranks.cpp); the share's parameters and moments stay on the GPU, and
// only actions, means and the Gaussians that change rank cross to the host.
#include "radiant/core/densify_rules.hpp"
#include "radiant/core/error.hpp"
#include "radiant/train/cuda_step.hpp"
#include "step_state.hpp"

namespace radiant {

std::vector<std::uint32_t> CudaStep::adc_actions(const AdcRule& rule) {
    Impl& d = *impl_;
    if (d.n == 0) return {};
    d.adc_pass(rule);
    return d.actions.download(d.stream);
}

void CudaStep::apply_adc(const std::vector<std::uint32_t>& actions, std::uint64_t seed,
                         const std::uint64_t* keys) {
    Impl& d = *impl_;
    RADIANT_CHECK(actions.size() == d.n, "apply_adc: one action per Gaussian");
    std::vector<std::uint32_t> offsets(d.n + 1, 0);
    for (std::size_t i = 0; i < d.n; ++i)
        offsets[i + 1] = offsets[i] + std::uint32_t(adc_outputs(actions[i]));
    const std::size_t out_n = offsets[d.n];
    d.actions.upload(actions, d.stream);
    d.offsets.upload(offsets, d.stream);
    d.write_adc(out_n, seed, keys);
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));  // before `actions` and `offsets` go
}

std::vector<float> CudaStep::means() const {
    return impl_->params.means.download(impl_->stream);
}

std::vector<float> CudaStep::opacity_logits() const {
    return impl_->params.opacity_logits.download(impl_->stream);
}

void CudaStep::mcmc_correct(const std::vector<std::uint32_t>& draws) {
    Impl& d = *impl_;
    RADIANT_CHECK(draws.size() == d.n, "mcmc_correct: one count per Gaussian");
    d.copies.upload(draws, d.stream);
    launch_mcmc_correct(d.params.view(), d.m.view(), d.v.view(), d.n, sh_coeff_count(d.sh_degree),
                        d.copies.data(), d.stream);
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
}

void CudaStep::rows(const std::vector<std::uint32_t>& which, Scene& params, Scene& m, Scene& v) {
    Impl& d = *impl_;
    for (std::uint32_t i : which) RADIANT_CHECK(i < d.n, "rows: a Gaussian past the scene's end");
    d.row_from.upload(which, d.stream);
    d.size_next(which.size());
    const GaussianMoments own{d.params.view(), d.m.view(), d.v.view()};
    launch_gather_gaussians(own, d.n, own, d.row_from.data(), which.size(), sh_coeff_count(d.sh_degree),
                            {d.next_params.view(), d.next_m.view(), d.next_v.view()}, d.stream);
    params = d.next_params.download(d.sh_degree, d.stream);
    m = d.next_m.download(d.sh_degree, d.stream);
    v = d.next_v.download(d.sh_degree, d.stream);
}

void CudaStep::rearrange(const std::vector<std::uint32_t>& from, const Scene& params, const Scene& m,
                         const Scene& v) {
    Impl& d = *impl_;
    const std::size_t arrived = params.size();
    RADIANT_CHECK(m.size() == arrived && v.size() == arrived &&
                      (arrived == 0 || (params.sh_degree == d.sh_degree && m.sh_degree == d.sh_degree &&
                                        v.sh_degree == d.sh_degree)),
                  "rearrange: the arriving Gaussians and their moments disagree");
    for (std::uint32_t f : from)
        RADIANT_CHECK(f < d.n + arrived, "rearrange: a row that is neither held nor arriving");
    DeviceArrays in_p, in_m, in_v;
    for (auto [to, s] : {std::pair{&in_p, &params}, {&in_m, &m}, {&in_v, &v}}) {
        to->set_counter(&d.counter);
        to->upload(*s, d.stream);
    }
    d.row_from.upload(from, d.stream);
    d.size_next(from.size());
    launch_gather_gaussians({d.params.view(), d.m.view(), d.v.view()}, d.n,
                            {in_p.view(), in_m.view(), in_v.view()}, d.row_from.data(), from.size(),
                            sh_coeff_count(d.sh_degree),
                            {d.next_params.view(), d.next_m.view(), d.next_v.view()}, d.stream);
    d.take_next();
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));  // before the staging buffers go
}

}  // namespace radiant
