#pragma once
// How Gaussian-parallel training deals the scene out: each rank owns a contiguous run of the Gaussians in
// Morton order (nearby Gaussians on one rank, so a view's pixels draw on few ranks' shares), equal in count,
// with its parameters and Adam moments. Each Gaussian keeps a global id for its whole life, which fixes
// the order of a merged scene and of equal-depth splats, whatever the ranks.
#include <cstdint>
#include <vector>

#include "radiant/core/scene.hpp"
#include "radiant/core/vec.hpp"
#include "radiant/distributed/communicator.hpp"
#include "radiant/train/adam.hpp"
#include "radiant/train/backend.hpp"

namespace radiant::distributed {

struct Share {
    Scene scene;                     // this rank's Gaussians, in increasing id
    std::vector<std::uint64_t> ids;  // the global id of each
    AdamState adam;                  // their moments; the step count is the run's
};

// A 63-bit Morton key of each mean, quantised to 2^21 cells an axis of the box [lo, hi].
std::vector<std::uint64_t> morton_keys(const Scene& scene, const Vec3<double>& lo, const Vec3<double>& hi);

// The first index of each rank's run when n Gaussians go to `ranks` ranks: sizes differ by one at most.
std::size_t run_start(std::size_t n, int rank, int ranks);

// The share of `rank` when every rank holds the whole scene (ids 0 … N−1) and fresh Adam moments.
Share initial_share(const Scene& scene, int rank, int ranks);
// The share of `rank` of a whole run's state whose Gaussians carry `ids` (increasing), dealt as
// initial_share deals a scene, with its moments and step; stats receives its densification statistics.
Share share_of(const TrainState& whole, const std::vector<std::uint64_t>& ids, int rank, int ranks,
               DensifyStats& stats);

// Deals the ranks' Gaussians out again (after densification changed their counts), with their moments, into
// equal runs of the global (Morton key, id) order. Every rank calls it; none is lost or duplicated. Only the
// Gaussians that change rank travel; a store's statistics restart when its share changes.
void rebalance(Communicator& comm, Share& share);
class ShareStore;  // share_store.hpp
void rebalance(Communicator& comm, ShareStore& store);

// The whole scene on every rank, in increasing id (ids_out, when given, receives them).
Scene merge(Communicator& comm, const Share& share, std::vector<std::uint64_t>* ids_out = nullptr);
// The whole run's state on rank 0, in increasing id: parameters, moments (the run's step count) and the
// densification statistics `stats` of each rank's share (zeros where a rank keeps none); ids_out receives
// the ids. The other ranks receive an empty state.
TrainState merge_state(Communicator& comm, const Share& share, const DensifyStats& stats,
                       std::vector<std::uint64_t>& ids_out);

}  // namespace radiant::distributed
