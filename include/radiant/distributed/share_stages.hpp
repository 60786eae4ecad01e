#pragma once
// The stages of a Gaussian-parallel step that run on one rank (batch_step does the exchanges between them):
// projecting the rank's share into a view, rendering a view from the records every rank sent, and the
// geometry backward and update of the share. They run on the CPU backend (make_cpu_share_stages) or on the
// rank's GPU (make_share_stages("cuda"), CUDA builds), the same loop and exchanges around either.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "radiant/distributed/communicator.hpp"
#include "radiant/distributed/gaussian_parallel.hpp"
#include "radiant/distributed/partition.hpp"
#include "radiant/distributed/share_store.hpp"
#include "radiant/train/densify.hpp"

namespace radiant::distributed {

struct ViewRender {
    double loss = 0;  // the view's L1 + SSIM loss
    std::size_t tile_pairs = 0;
};

// A step's exchanges take the stages' buffers in place: each stage keeps, per batch view, what it projected
// (sent to the view's renderer), what arrived for a view it renders, and the gradients both ways. The buffers
// of a view stay where they are from the call that hands them out until the step's end.
class ShareStages {
  public:
    virtual ~ShareStages() = default;
    // Where the buffers are: host memory, or the GPU (which NCCL sends from without a copy).
    virtual const BufferSpace& space() const = 0;
    // Stages that keep the share elsewhere (a GPU) take the host share after the loop changed it
    // (densification, reset, noise) and give it back before the loop reads or changes it; stages that work
    // on the host share need neither.
    virtual void load(const Share& /*share*/, const DensifyStats& /*stats*/) {}
    virtual void store(Share& /*share*/, DensifyStats& /*stats*/) {}
    // The share where these stages keep it, for densification, the opacity reset and MCMC's noise without a
    // store() and load() around them (the host share, or the GPU's copy; share.ids stay current either way).
    // Valid until the stages or `share` go; after a load() it sees what was loaded.
    virtual std::unique_ptr<ShareStore> in_place(Share& share, DensifyStats& stats) {
        return host_store(share, stats);
    }

    virtual void begin(Share& share, const BatchStepInput& in) = 0;
    // Projects the share into view b and keeps what the view sees (for the renderer, and for the backward);
    // returns how many Gaussians that is.
    virtual std::size_t project(Share& share, const BatchStepInput& in, std::size_t b) = 0;
    // View b's projected Gaussians as they go to its renderer, in parts (ids, records, …) whose sizes follow
    // from the count alone.
    virtual std::vector<Segment> outgoing(const BatchStepInput& in, std::size_t b) = 0;
    // Room for view b's Gaussians from every rank, counts[s] from rank s: rank s's parts, as outgoing's.
    virtual std::vector<std::vector<Segment>> incoming(const BatchStepInput& in, std::size_t b,
                                                       const std::vector<std::size_t>& counts) = 0;
    // View b from what arrived, merged in global-id order (one process's order, which decides equal
    // depths): its loss and the raster backward of the batch's loss (the views' mean).
    virtual ViewRender render(const BatchStepInput& in, std::size_t b) = 0;
    // After render: the gradients of the Gaussians rank s sent for view b, in the order it sent them.
    virtual Segment returned(const BatchStepInput& in, std::size_t b, int s) = 0;
    // Room for the gradients of this rank's Gaussians of view b, in the order project kept them.
    virtual Segment gradients(const BatchStepInput& in, std::size_t b) = 0;
    // The geometry backward of view b from those gradients, added to the batch's gradients and to `stats`
    // (when not null) as one process would.
    virtual void backward(Share& share, const BatchStepInput& in, std::size_t b, DensifyStats* stats) = 0;
    // MCMC's regularisers (means over `count`, the whole scene's Gaussians), then Adam on the share.
    virtual void update(Share& share, const BatchStepInput& in, double count) = 0;
    // The most device memory the stages have held (0 for stages on the host).
    virtual std::size_t peak_bytes() const { return 0; }
};

std::unique_ptr<ShareStages> make_cpu_share_stages();

// "cpu" or "cuda" (CUDA builds; the GPU is the calling thread's current device). The GPU stages upload the
// views' targets once (as 8-bit, as the single-GPU trainer does); `views[i].image` must be i.
std::unique_ptr<ShareStages> make_share_stages(const std::string& backend,
                                               const std::vector<BatchView>& views);

// batch_step on the given stages.
BatchStepResult batch_step(Communicator& comm, ShareStages& stages, Share& share, const BatchStepInput& input,
                           DensifyStats* stats = nullptr);

}  // namespace radiant::distributed
