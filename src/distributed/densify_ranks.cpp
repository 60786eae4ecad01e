#include "radiant/distributed/densify_ranks.hpp"

#include <fmt/format.h>

#include <numeric>
#include <string>

#include "radiant/core/adc_cap.hpp"
#include "radiant/distributed/share_store.hpp"
#include "wire.hpp"

namespace radiant::distributed {
namespace {

// Each Gaussian's `values` entry at its id: the whole scene's, as one process lays it out. The ranks hold the
// ids 0 … N−1 between them, each once (initial_share deals them out; ADC numbers them afresh, MCMC appends
// the next). On one rank the share is the scene; otherwise each rank sends its ids and values (8 + sizeof(T)
// bytes a Gaussian), and nothing needs sorting.
template <class T>
std::vector<T> whole_by_id(Communicator& comm, const std::vector<std::uint64_t>& ids,
                           const std::vector<T>& values, const char* who) {
    const std::size_t n = ids.size();
    RADIANT_CHECK(values.size() == n, fmt::format("{}: ids do not match the share", who));
    const std::string not_a_numbering = fmt::format("{}: the ranks' ids are not 0 … N−1, each once", who);
    if (comm.size() == 1) {
        for (std::size_t i = 0; i < n; ++i) RADIANT_CHECK(ids[i] == i, not_a_numbering);
        return values;
    }
    Bytes sent;
    Writer w(sent);
    w.put(ids.data(), n);
    w.put(values.data(), n);
    constexpr std::size_t kBytes = sizeof(std::uint64_t) + sizeof(T);
    const std::vector<Bytes> got = all_gather(comm, sent);
    std::size_t total = 0;
    for (const Bytes& g : got) {
        RADIANT_CHECK(g.size() % kBytes == 0, fmt::format("{}: a rank's ids and values do not pair up", who));
        total += g.size() / kBytes;
    }
    std::vector<T> whole(total);
    std::vector<bool> seen(total, false);
    std::vector<std::uint64_t> their_ids;
    std::vector<T> theirs;
    for (const Bytes& g : got) {
        const std::size_t m = g.size() / kBytes;
        their_ids.resize(m);
        theirs.resize(m);
        Reader r(g);
        r.get(their_ids.data(), m);
        r.get(theirs.data(), m);
        for (std::size_t k = 0; k < m; ++k) {
            const std::uint64_t id = their_ids[k];
            RADIANT_CHECK(id < total && !seen[id], not_a_numbering);
            seen[id] = true;
            whole[id] = theirs[k];
        }
    }
    return whole;
}

}  // namespace

DensifyCounts densify_adc_ranks(Communicator& comm, ShareStore& store, const AdcConfig& config, double extent,
                                long step, std::uint64_t seed) {
    const std::vector<std::uint64_t>& ids = store.ids();
    const std::size_t n = ids.size();
    AdcRule rule = adc_rule(config, extent, step);
    std::vector<std::uint32_t> actions = store.adc_actions(rule);
    RADIANT_CHECK(actions.size() == n, "densify_adc_ranks: actions and ids do not match the share");
    DensifyCounts counts;
    if (config.max_gaussians > 0) {
        // The cap ranks the candidates of the whole scene, in one process's order.
        struct CapCandidate {
            float grad_accum = 0;
            std::int32_t denom = 0;
            std::uint32_t action = 0;
        };
        std::vector<CapCandidate> mine(n);
        {
            std::vector<float> grad(n, 0.f);
            std::vector<std::int32_t> denom(n, 0);
            store.adc_statistics(grad, denom);
            for (std::size_t i = 0; i < n; ++i) mine[i] = {grad[i], denom[i], actions[i]};
        }
        const std::vector<CapCandidate> all = whole_by_id(comm, ids, mine, "densify_adc_ranks");
        std::vector<float> grads(all.size());
        std::vector<std::int32_t> denoms(all.size());
        std::vector<std::uint32_t> all_actions(all.size());
        for (std::size_t g = 0; g < all.size(); ++g) {
            grads[g] = all[g].grad_accum;
            denoms[g] = all[g].denom;
            all_actions[g] = all[g].action;
        }
        const float t =
            adc_capped_threshold(grads, denoms, all_actions, rule.grad_threshold, config.max_gaussians);
        if (t != rule.grad_threshold) {
            rule.grad_threshold = t;
            counts.capped = true;
            actions = store.adc_actions(rule);
        }
    }
    // New ids: each Gaussian's outputs start where one process's apply_plan would put them, after the
    // outputs of every Gaussian of a smaller id.
    std::vector<std::uint8_t> mine(n);  // 9 bytes a Gaussian to gather, not 12
    for (std::size_t i = 0; i < n; ++i) {
        RADIANT_CHECK(actions[i] <= 0xff, "densify_adc_ranks: an ADC action outside its flags");
        mine[i] = std::uint8_t(actions[i]);
    }
    const std::vector<std::uint8_t> all = whole_by_id(comm, ids, mine, "densify_adc_ranks");
    std::vector<std::uint64_t> start(all.size());
    std::uint64_t next = 0;
    for (std::size_t g = 0; g < all.size(); ++g) {
        start[g] = next;
        next += std::uint64_t(adc_outputs(all[g]));
        if (all[g] & kAdcClone) ++counts.clone;
        if (all[g] & kAdcSplit) ++counts.split;
        if (all[g] & kAdcPrune) ++counts.prune;
    }
    std::vector<std::uint64_t> new_ids;
    new_ids.reserve(n + n / 4);
    for (std::size_t i = 0; i < n; ++i)
        for (int k = 0; k < adc_outputs(actions[i]); ++k) new_ids.push_back(start[ids[i]] + std::uint64_t(k));
    counts.gaussians = std::size_t(next);
    store.apply_adc(actions, seed, std::move(new_ids));
    rebalance(comm, store);
    return counts;
}

DensifyCounts densify_adc_ranks(Communicator& comm, Share& share, DensifyStats& stats,
                                const AdcConfig& config, double extent, long step, std::uint64_t seed) {
    RADIANT_CHECK(stats.grad_accum.size() == share.scene.size() && share.ids.size() == share.scene.size(),
                  "densify_adc_ranks: statistics or ids do not match the share");
    const DensifyCounts counts =
        densify_adc_ranks(comm, *host_store(share, stats), config, extent, step, seed);
    stats.reset(share.scene.size());
    return counts;
}

DensifyCounts densify_mcmc_ranks(Communicator& comm, ShareStore& store, const McmcConfig& config,
                                 std::uint64_t seed) {
    const std::vector<std::uint64_t>& ids = store.ids();
    const std::size_t n = ids.size();
    // Every Gaussian's opacity, in id order: the scene's as one process holds it.
    Scene whole;  // opacities only: what plan_mcmc reads
    whole.opacity_logits = whole_by_id(comm, ids, store.opacity_logits(), "densify_mcmc_ranks");
    const std::size_t total = whole.opacity_logits.size();
    const DensifyPlan plan = plan_mcmc(whole, config, seed);
    DensifyCounts counts;
    counts.relocate = plan.relocate_dead.size();
    counts.add = plan.add_source.size();
    counts.gaussians = total + counts.add;

    // The owners correct their sources: each loses opacity and scale for the copies made of it.
    std::vector<std::uint32_t> draws_of(total, 0);
    for (std::int32_t s : plan.relocate_source) ++draws_of[std::size_t(s)];
    for (std::int32_t s : plan.add_source) ++draws_of[std::size_t(s)];
    std::vector<std::uint32_t> draws(n, 0), sources;
    for (std::size_t i = 0; i < n; ++i) {
        draws[i] = draws_of[std::size_t(ids[i])];
        if (draws[i] > 0) sources.push_back(std::uint32_t(i));
    }
    store.mcmc_correct(draws);
    // Every corrected source, on every rank, before any dead Gaussian is overwritten (one process copies
    // from a snapshot taken at this point too).
    Bytes sent;
    {
        Scene p, m, v;
        store.rows(sources, p, m, v);
        Writer sw(sent);
        for (std::size_t k = 0; k < sources.size(); ++k) {
            sw.put(ids[sources[k]]);
            put_row(sw, p, k);
        }
    }
    Scene src;
    src.sh_degree = store.sh_degree();
    std::vector<std::size_t> slot(total, std::size_t(-1));
    for (const Bytes& b : all_gather(comm, sent)) {
        Reader r(b);
        while (!r.done()) {
            const auto g = std::size_t(r.get<std::uint64_t>());
            slot[g] = src.size();
            src.resize(src.size() + 1);
            read_row(r, src, slot[g]);
        }
    }
    // The share after: each dead Gaussian this rank holds takes its source's row, rank 0 appends the new
    // ones; both with fresh moments.
    std::vector<std::uint32_t> from(n);
    std::iota(from.begin(), from.end(), std::uint32_t(0));
    std::vector<std::uint64_t> next_ids = ids;
    Scene arrived;
    arrived.sh_degree = src.sh_degree;
    auto take = [&](std::size_t g) {
        RADIANT_CHECK(slot[g] != std::size_t(-1), "densify_mcmc_ranks: a source no rank sent");
        const std::size_t k = arrived.size();
        arrived.resize(k + 1);
        copy_gaussian(src, slot[g], arrived, k);
        return std::uint32_t(n + k);
    };
    std::vector<std::size_t> local(total, std::size_t(-1));
    for (std::size_t i = 0; i < n; ++i) local[std::size_t(ids[i])] = i;
    for (std::size_t r = 0; r < plan.relocate_dead.size(); ++r) {
        const std::size_t dead = std::size_t(plan.relocate_dead[r]);
        if (local[dead] != std::size_t(-1)) from[local[dead]] = take(std::size_t(plan.relocate_source[r]));
    }
    if (comm.rank() == 0) {
        for (std::size_t a = 0; a < plan.add_source.size(); ++a) {
            from.push_back(take(std::size_t(plan.add_source[a])));
            next_ids.push_back(std::uint64_t(total + a));
        }
    }
    Scene zeros;
    zeros.sh_degree = arrived.sh_degree;
    zeros.resize(arrived.size());
    store.rearrange(from, arrived, zeros, zeros, std::move(next_ids));
    rebalance(comm, store);
    return counts;
}

DensifyCounts densify_mcmc_ranks(Communicator& comm, Share& share, DensifyStats& stats,
                                 const McmcConfig& config, std::uint64_t seed) {
    RADIANT_CHECK(share.ids.size() == share.scene.size(), "densify_mcmc_ranks: ids do not match the share");
    const DensifyCounts counts = densify_mcmc_ranks(comm, *host_store(share, stats), config, seed);
    stats.reset(share.scene.size());
    return counts;
}

}  // namespace radiant::distributed
