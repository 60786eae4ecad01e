#pragma once
// ADC densification of a scene dealt out over ranks, deciding what one process would decide: each rank plans
// its own Gaussians from their own statistics (all of ADC's tests are per Gaussian), the cap's gradient
// threshold is taken over every rank's candidates, and the Gaussians are numbered afresh so that the ids
// stay 0 … N−1 in the order one process lays its scene out (apply_plan: each Gaussian's outputs in its
// place). A split draws from its Gaussian's id, so it draws the same on any rank. The shares are rebalanced
// after.
#include <cstdint>

#include "radiant/distributed/communicator.hpp"
#include "radiant/distributed/partition.hpp"
#include "radiant/train/backend.hpp"
#include "radiant/train/densify.hpp"

namespace radiant::distributed {

// stats: this rank's, for its share (reset to zero at the share's new size). Returns the counts over every
// rank, the same on each.
DensifyCounts densify_adc_ranks(Communicator& comm, Share& share, DensifyStats& stats,
                                const AdcConfig& config, double extent, long step, std::uint64_t seed);
// The same where the share's stages keep it (its statistics there restart).
class ShareStore;  // share_store.hpp
DensifyCounts densify_adc_ranks(Communicator& comm, ShareStore& store, const AdcConfig& config, double extent,
                                long step, std::uint64_t seed);

// MCMC's relocation and growth over ranks, as one process decides and applies them (plan_mcmc, apply_plan)
// on the scene laid out in id order: the opacities are gathered, every rank draws the same global plan, the
// owners correct their sources (opacity and scale for the copies they gain), the corrected sources go to
// every rank, each rank fills its own dead Gaussians from them, and rank 0 appends the new ones with the next
// ids. Needs the ids to be 0 … N−1 (as ADC's renumbering and initial_share leave them). Rebalances after;
// `stats` is reset at the share's new size. Returns the counts (relocate, add), the same on every rank.
DensifyCounts densify_mcmc_ranks(Communicator& comm, Share& share, DensifyStats& stats,
                                 const McmcConfig& config, std::uint64_t seed);
// The same where the share's stages keep it.
DensifyCounts densify_mcmc_ranks(Communicator& comm, ShareStore& store, const McmcConfig& config,
                                 std::uint64_t seed);

}  // namespace radiant::distributed
