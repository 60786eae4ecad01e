#pragma once
// One Gaussian-parallel training step (issue 25, after gsplat's distributed mode and the Grendel paper), on
// the CPU backend's stages, for both shading models (`ray`: the camera-frame footprints travel too). Every
// rank projects its own share into every view of the batch and sends the projected 2D Gaussians that touch a
// view to the rank that renders it (all-to-all); that rank merges them in global-id order, rasterises, takes
// the loss and the raster backward, and sends each 2D Gaussian's gradient back to its owner (all-to-all),
// which runs the projection backward and Adam on its share. The merged order equals one rank's index order,
// so the result equals a single rank's step on the same batch: the stages are deterministic and each
// Gaussian's gradient is summed over the views in batch order.
#include <cstdint>
#include <vector>

#include "radiant/core/camera.hpp"
#include "radiant/core/image.hpp"
#include "radiant/core/render_settings.hpp"
#include "radiant/distributed/communicator.hpp"
#include "radiant/distributed/partition.hpp"
#include "radiant/train/adam.hpp"
#include "radiant/train/densify.hpp"

namespace radiant::distributed {

struct BatchView {
    const Camera* camera = nullptr;
    const Image<float>* target = nullptr;  // read only by the rank that renders the view
    std::size_t image = 0;                 // the view's place in the run's list (the GPU stages' images)
    // The GPU stages take the 8-bit photo when given (a run's images, a quarter of the floats' memory) and
    // need no float target then; the CPU stages read `target`.
    const TargetImage* photo = nullptr;
};

struct BatchStepInput {
    std::vector<BatchView> views;  // the same batch on every rank
    // The rank rendering each view (assign_views on measured costs); empty: view b on rank b % ranks.
    std::vector<int> renderers;
    RenderSettings settings;  // either shading model; `ray` through any lens the camera has
    LearningRates lr;
    AdamConfig adam;
    double lambda_ssim = 0.2;
    // MCMC's regularisers (add_mcmc_regularisers) over the whole scene: each owner adds its share's
    // gradients with the global count. Their loss is not in BatchStepResult::loss.
    double opacity_reg = 0, scale_reg = 0;
    // The caller's values to sum over the ranks, carried by the step's own all-reduce (a collective costs
    // ~50 µs over NCCL even on one rank): BatchStepResult::also_summed.
    std::vector<double> also_sum;
};

struct BatchStepResult {
    double loss = 0;                  // mean over the batch's views, the same on every rank
    std::size_t sent_gaussians = 0;   // projected Gaussians this rank sent to renderers (itself included)
    std::size_t rendered_pairs = 0;   // tile pairs of the views this rank rendered
    std::vector<double> view_pairs;   // tile pairs of each view of the batch, the same on every rank
    std::vector<double> also_summed;  // BatchStepInput::also_sum summed over the ranks
    double ranks_seconds = 0;         // every rank's seconds.total() summed, the same on every rank
    // Wall-clock seconds of this rank's phases: projecting its share (with gathering the records), the
    // first exchange (the counts, then the records), merging and rendering its views, the second exchange,
    // and the geometry backward with the update (each exchange includes the wait for the slowest rank).
    struct Phases {
        double project = 0, send = 0, render = 0, send_back = 0, update = 0;
        double total() const { return project + send + render + send_back + update; }
        Phases& operator+=(const Phases& o) {
            project += o.project;
            send += o.send;
            render += o.render;
            send_back += o.send_back;
            update += o.update;
            return *this;
        }
    } seconds;
};

// Which rank renders view `b` of a batch.
inline int renderer_of(const BatchStepInput& in, std::size_t b, int ranks) {
    return in.renderers.empty() ? int(b % std::size_t(ranks)) : in.renderers[b];
}

// The batch's loss is the mean of its views' L1 + SSIM losses. stats (optional): this rank's densification
// statistics, summed as the CPU backend sums them (sized to the share when empty).
BatchStepResult batch_step(Communicator& comm, Share& share, const BatchStepInput& input,
                           DensifyStats* stats = nullptr);

// The same step on one process without ranks: the reference the partitioned step must equal.
double batch_step_single(Scene& scene, AdamState& adam, const BatchStepInput& input,
                         DensifyStats* stats = nullptr);

}  // namespace radiant::distributed
