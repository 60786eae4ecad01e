#include "radiant/distributed/share_store.hpp"

#include "radiant/core/error.hpp"
#include "wire.hpp"

namespace radiant::distributed {
namespace {

class HostStore final : public ShareStore {
  public:
    HostStore(Share& share, DensifyStats& stats) : share_(share), stats_(stats) {}

    const std::vector<std::uint64_t>& ids() const override { return share_.ids; }
    int sh_degree() const override { return share_.scene.sh_degree; }

    std::vector<std::uint32_t> adc_actions(const AdcRule& rule) override {
        return radiant::adc_actions(share_.scene, stats_, rule);
    }
    void adc_statistics(std::vector<float>& grad_accum, std::vector<std::int32_t>& denom) override {
        grad_accum = stats_.grad_accum;
        denom = stats_.denom;
    }

    void apply_adc(const std::vector<std::uint32_t>& actions, std::uint64_t seed,
                   std::vector<std::uint64_t> new_ids) override {
        RADIANT_CHECK(actions.size() == share_.scene.size(), "apply_adc: one action per Gaussian");
        apply_plan(adc_plan_of(actions, seed), share_.scene, share_.adam, stats_, &share_.ids);
        RADIANT_CHECK(new_ids.size() == share_.scene.size(), "apply_adc: outputs and ids disagree");
        share_.ids = std::move(new_ids);
    }

    void reset_opacity(double value) override {
        DensifyPlan plan;
        plan.reset_opacity = value;
        apply_plan(plan, share_.scene, share_.adam, stats_);
    }

    std::vector<float> opacity_logits() override { return share_.scene.opacity_logits; }

    void mcmc_correct(const std::vector<std::uint32_t>& draws) override {
        RADIANT_CHECK(draws.size() == share_.scene.size(), "mcmc_correct: one count per Gaussian");
        for (std::size_t i = 0; i < draws.size(); ++i) {
            if (draws[i] == 0) continue;
            mcmc_correct_source(share_.scene, i, int(draws[i]) + 1);
            zero_gaussian(share_.adam.m, i);
            zero_gaussian(share_.adam.v, i);
        }
    }

    void add_noise(double scale, std::uint64_t seed) override {
        add_position_noise(share_.scene, scale, seed, &share_.ids);
    }

    std::vector<float> means() override { return share_.scene.means; }

    void rows(const std::vector<std::uint32_t>& which, Scene& params, Scene& m, Scene& v) override {
        params = gather_rows(share_.scene, which);
        m = gather_rows(share_.adam.m, which);
        v = gather_rows(share_.adam.v, which);
    }

    void rearrange(const std::vector<std::uint32_t>& from, const Scene& params, const Scene& m,
                   const Scene& v, std::vector<std::uint64_t> ids) override {
        RADIANT_CHECK(ids.size() == from.size(), "rearrange: one id a row");
        share_.scene = gather_rows(share_.scene, from, &params);
        share_.adam.m = gather_rows(share_.adam.m, from, &m);
        share_.adam.v = gather_rows(share_.adam.v, from, &v);
        share_.ids = std::move(ids);
        stats_.reset(share_.scene.size());
    }

  private:
    Share& share_;
    DensifyStats& stats_;
};

}  // namespace

std::unique_ptr<ShareStore> host_store(Share& share, DensifyStats& stats) {
    return std::make_unique<HostStore>(share, stats);
}

}  // namespace radiant::distributed
