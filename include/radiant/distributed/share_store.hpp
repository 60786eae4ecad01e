#pragma once
// A rank's share where its stages keep it, as densification and rebalancing reach it: host memory (the CPU
// stages, the tests) or the rank's GPU (the CUDA stages). The decisions over ranks (densify_ranks.cpp,
// partition.cpp) are written once against it; a share on a GPU keeps its parameters and moments there, and
// only actions, means and the Gaussians that change rank cross to the host. The ids are on the host
// (Share::ids) in both, always current.
#include <cstdint>
#include <memory>
#include <vector>

#include "radiant/core/scene.hpp"
#include "radiant/distributed/partition.hpp"
#include "radiant/train/densify.hpp"

namespace radiant::distributed {

class ShareStore {
  public:
    virtual ~ShareStore() = default;
    virtual const std::vector<std::uint64_t>& ids() const = 0;
    virtual int sh_degree() const = 0;
    // Each Gaussian's ADC action (kAdc* flags) under `rule`, from its statistics.
    virtual std::vector<std::uint32_t> adc_actions(const AdcRule& rule) = 0;
    // The statistics adc_capped_threshold ranks by.
    virtual void adc_statistics(std::vector<float>& grad_accum, std::vector<std::int32_t>& denom) = 0;
    // The share after `actions`, laid out as apply_plan lays it out (a split draws from its Gaussian's id);
    // new_ids: one for each Gaussian after. The statistics restart.
    virtual void apply_adc(const std::vector<std::uint32_t>& actions, std::uint64_t seed,
                           std::vector<std::uint64_t> new_ids) = 0;
    // ADC's opacity reset: opacities at most `value`, their moments zero; the statistics restart.
    virtual void reset_opacity(double value) = 0;
    // The opacity logits [N].
    virtual std::vector<float> opacity_logits() = 0;
    // MCMC's correction of each Gaussian drawn draws[i] > 0 times as a source (mcmc_correct_source with
    // 1 + draws[i] copies), its moments zeroed.
    virtual void mcmc_correct(const std::vector<std::uint32_t>& draws) = 0;
    // MCMC's position noise, each Gaussian's draw keyed by its id.
    virtual void add_noise(double scale, std::uint64_t seed) = 0;
    // The means [3N].
    virtual std::vector<float> means() = 0;
    // Rows `which`: parameters and both moments.
    virtual void rows(const std::vector<std::uint32_t>& which, Scene& params, Scene& m, Scene& v) = 0;
    // The share whose row j is its row from[j] (from[j] < N) or arriving row from[j] − N, with ids `ids`.
    // The statistics restart.
    virtual void rearrange(const std::vector<std::uint32_t>& from, const Scene& params, const Scene& m,
                           const Scene& v, std::vector<std::uint64_t> ids) = 0;
};

// A share in host memory, with its densification statistics.
std::unique_ptr<ShareStore> host_store(Share& share, DensifyStats& stats);

}  // namespace radiant::distributed
