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
#include "radiant/train/densify.hpp"

namespace radiant::distributed {

struct ViewRender {
    double loss = 0;  // the view's L1 + SSIM loss
    std::size_t tile_pairs = 0;
};

class ShareStages {
  public:
    virtual ~ShareStages() = default;
    // Bytes of one projected Gaussian on the wire, and of its gradient, under these settings.
    virtual std::size_t record_bytes(const RenderSettings& settings) const = 0;
    virtual std::size_t grad_bytes(const RenderSettings& settings) const = 0;
    // Stages that keep the share elsewhere (a GPU) take the host share after the loop changed it
    // (densification, reset, noise) and give it back before the loop reads or changes it; stages that work
    // on the host share need neither.
    virtual void load(const Share& /*share*/, const DensifyStats& /*stats*/) {}
    virtual void store(Share& /*share*/, DensifyStats& /*stats*/) {}

    virtual void begin(Share& share, const BatchStepInput& in) = 0;
    // The share in view b: the local index of each Gaussian the view sees and its record (record_bytes each).
    virtual void project(Share& share, const BatchStepInput& in, std::size_t b,
                         std::vector<std::uint32_t>& locals, Bytes& records) = 0;
    // View b from `count` records of every rank, in the order given: its loss and the raster backward, the
    // gradient of the batch's loss (the views' mean) for each record (grad_bytes each, the same order).
    virtual ViewRender render(const BatchStepInput& in, std::size_t b, std::size_t count,
                              const std::byte* records, Bytes& grads) = 0;
    // The geometry backward of view b from the gradients of the share's Gaussians `locals`, added to the
    // batch's gradients and to `stats` (when not null) as one process would.
    virtual void backward(Share& share, const BatchStepInput& in, std::size_t b,
                          const std::vector<std::uint32_t>& locals, const std::byte* grads,
                          DensifyStats* stats) = 0;
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
