#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>

#include "radiant/core/error.hpp"
#include "radiant/distributed/gaussian_parallel.hpp"
#include "radiant/distributed/share_stages.hpp"
#include "radiant/render/cpu/render_cpu.hpp"
#include "radiant/train/loss.hpp"
#include "stage_helpers.hpp"

namespace radiant::distributed {
namespace {

void check_input(const BatchStepInput& in, int ranks) {
    RADIANT_CHECK(!in.views.empty(), "a training batch needs at least one view");
    RADIANT_CHECK(in.renderers.empty() || in.renderers.size() == in.views.size(),
                  "a batch's renderers must name one rank per view");
    for (int r : in.renderers) RADIANT_CHECK(r >= 0 && r < ranks, "a batch view's renderer is not a rank");
    for (const BatchView& v : in.views) RADIANT_CHECK(v.camera != nullptr, "a batch view without a camera");
}

// What a rendering rank received for one view: every rank's visible Gaussians, who sent each and its index
// there, and their records laid end to end.
struct Incoming {
    std::vector<std::uint64_t> ids;
    std::vector<std::uint32_t> locals;
    std::vector<int> source;
    Bytes records;
};

// What an owner got back for one view: its Gaussians' indices and their gradients.
struct Returned {
    bool arrived = false;
    std::vector<std::uint32_t> locals;
    Bytes grads;
};

}  // namespace

double view_loss(const Image<float>& rgb, const BatchView& view, const BatchStepInput& in,
                 Image<float>& v_rgb) {
    RADIANT_CHECK(view.target != nullptr, "the rank rendering a view needs its target image");
    const LossValue l = photometric_loss(rgb, *view.target, in.lambda_ssim, &v_rgb);
    const float weight = 1.0f / float(in.views.size());
    for (float& v : v_rgb.data) v *= weight;
    return l.total;
}

BatchStepResult batch_step(Communicator& comm, ShareStages& stages, Share& share, const BatchStepInput& in,
                           DensifyStats* stats) {
    check_input(in, comm.size());
    const int ranks = comm.size(), me = comm.rank();
    const std::size_t views = in.views.size();
    const std::size_t record = stages.record_bytes(in.settings), grad = stages.grad_bytes(in.settings);
    BatchStepResult result;
    auto last = std::chrono::steady_clock::now();
    auto lap = [&last](double& into) {
        const auto now = std::chrono::steady_clock::now();
        into += std::chrono::duration<double>(now - last).count();
        last = now;
    };
    stages.begin(share, in);

    // 1. Project the share into every view; what a view can see goes to the rank rendering it.
    std::vector<Bytes> out(static_cast<std::size_t>(ranks));
    std::vector<std::uint32_t> locals;
    Bytes records;
    for (std::size_t b = 0; b < views; ++b) {
        stages.project(share, in, b, locals, records);
        RADIANT_CHECK(records.size() == locals.size() * record,
                      "a stage's records do not match its Gaussians");
        std::vector<std::uint64_t> ids(locals.size());
        for (std::size_t k = 0; k < locals.size(); ++k) ids[k] = share.ids[locals[k]];
        Writer w(out[std::size_t(renderer_of(in, b, ranks))]);
        w.put(std::uint64_t(b));
        w.put(std::uint64_t(locals.size()));
        w.put(ids.data(), ids.size());
        w.put(locals.data(), locals.size());
        w.put(records.data(), records.size());
        result.sent_gaussians += locals.size();
    }
    lap(result.seconds.project);
    const std::vector<Bytes> arrived = comm.all_to_all(std::move(out));
    lap(result.seconds.send);

    // 2. Render this rank's views from every rank's Gaussians merged in global-id order (the order one
    //    process's scene has, which fixes the order of equal depths), then the loss and the raster backward;
    //    each Gaussian's gradient goes back to its owner.
    std::vector<Incoming> incoming(views);
    for (int s = 0; s < ranks; ++s) {
        Reader r(arrived[std::size_t(s)]);
        while (!r.done()) {
            const auto b = std::size_t(r.get<std::uint64_t>());
            const auto count = std::size_t(r.get<std::uint64_t>());
            RADIANT_CHECK(b < views && renderer_of(in, b, ranks) == me,
                          "a rank sent a view this rank does not render");
            Incoming& v = incoming[b];
            const std::size_t at = v.ids.size();
            v.ids.resize(at + count);
            v.locals.resize(at + count);
            v.records.resize((at + count) * record);
            r.get(v.ids.data() + at, count);
            r.get(v.locals.data() + at, count);
            r.get(v.records.data() + at * record, count * record);
            v.source.resize(at + count, s);
        }
    }
    std::vector<double> sums(2 * views, 0.0);  // each view's loss, then its tile pairs
    std::vector<Bytes> back(static_cast<std::size_t>(ranks));
    for (std::size_t b = 0; b < views; ++b) {
        if (renderer_of(in, b, ranks) != me) continue;
        const Incoming& v = incoming[b];
        std::vector<std::size_t> order(v.ids.size());
        std::iota(order.begin(), order.end(), std::size_t(0));
        // Each rank's records come in increasing id (a share is kept in id order): from one sender they
        // are in order already.
        if (!std::is_sorted(v.ids.begin(), v.ids.end()))
            std::sort(order.begin(), order.end(),
                      [&](std::size_t x, std::size_t y) { return v.ids[x] < v.ids[y]; });
        Bytes merged(v.records.size());
        for (std::size_t j = 0; j < order.size(); ++j)
            std::copy_n(v.records.data() + order[j] * record, record, merged.data() + j * record);
        Bytes grads;
        const ViewRender rendered = stages.render(in, b, order.size(), merged.data(), grads);
        RADIANT_CHECK(grads.size() == order.size() * grad, "a stage's gradients do not match its records");
        sums[b] = rendered.loss;
        sums[views + b] = double(rendered.tile_pairs);
        result.rendered_pairs += rendered.tile_pairs;
        // Back to the owners: each one's Gaussians of this view, as one block.
        std::vector<std::vector<std::uint32_t>> to_locals(static_cast<std::size_t>(ranks));
        std::vector<Bytes> to_grads(static_cast<std::size_t>(ranks));
        for (std::size_t j = 0; j < order.size(); ++j) {
            const auto s = std::size_t(v.source[order[j]]);
            to_locals[s].push_back(v.locals[order[j]]);
            to_grads[s].insert(to_grads[s].end(), grads.begin() + std::ptrdiff_t(j * grad),
                               grads.begin() + std::ptrdiff_t((j + 1) * grad));
        }
        for (int s = 0; s < ranks; ++s) {
            Writer w(back[std::size_t(s)]);
            w.put(std::uint64_t(b));
            w.put(std::uint64_t(to_locals[std::size_t(s)].size()));
            w.put(to_locals[std::size_t(s)].data(), to_locals[std::size_t(s)].size());
            w.put(to_grads[std::size_t(s)].data(), to_grads[std::size_t(s)].size());
        }
    }
    lap(result.seconds.render);
    const std::vector<Bytes> returned = comm.all_to_all(std::move(back));
    lap(result.seconds.send_back);

    // 3. The geometry backward of each view on the owner, summed in batch order, then the update.
    std::vector<Returned> got(views);
    for (const Bytes& from : returned) {
        Reader r(from);
        while (!r.done()) {
            const auto b = std::size_t(r.get<std::uint64_t>());
            const auto count = std::size_t(r.get<std::uint64_t>());
            RADIANT_CHECK(b < views && !got[b].arrived,
                          "a rank returned gradients of a view not in the batch");
            Returned& g = got[b];
            g.arrived = true;
            g.locals.resize(count);
            g.grads.resize(count * grad);
            r.get(g.locals.data(), count);
            r.get(g.grads.data(), count * grad);
            for (std::uint32_t local : g.locals)
                RADIANT_CHECK(local < share.scene.size(),
                              "a rank returned a gradient for a Gaussian this rank does not own");
        }
    }
    for (std::size_t b = 0; b < views; ++b) {
        RADIANT_CHECK(got[b].arrived, "no rank returned the gradients of a batch view");
        stages.backward(share, in, b, got[b].locals, got[b].grads.data(), stats);
    }
    std::vector<double> count{double(share.scene.size())};
    if (in.opacity_reg > 0 || in.scale_reg > 0) comm.all_reduce_sum(count);
    stages.update(share, in, count[0]);
    lap(result.seconds.update);

    comm.all_reduce_sum(sums);
    for (std::size_t b = 0; b < views; ++b) result.loss += sums[b] / double(views);
    result.view_pairs.assign(sums.begin() + std::ptrdiff_t(views), sums.end());
    return result;
}

BatchStepResult batch_step(Communicator& comm, Share& share, const BatchStepInput& in, DensifyStats* stats) {
    const std::unique_ptr<ShareStages> stages = make_cpu_share_stages();
    return batch_step(comm, *stages, share, in, stats);
}

double batch_step_single(Scene& scene, AdamState& adam, const BatchStepInput& in, DensifyStats* stats) {
    check_input(in, std::numeric_limits<int>::max());  // one process renders every view, whoever is named
    SceneGrads total;
    total.resize_like(scene);
    double loss = 0;
    for (const BatchView& view : in.views) {
        const ForwardResult<float> fwd = cpu::render_forward(scene, *view.camera, in.settings);
        Image<float> v_rgb;
        loss += view_loss(fwd.rgb, view, in, v_rgb) / double(in.views.size());
        const SceneGrads g = cpu::render_backward(scene, *view.camera, in.settings, fwd, v_rgb);
        add_grads(total, g);
        add_stats(stats, g, fwd.projected.radii);
    }
    if (in.opacity_reg > 0 || in.scale_reg > 0)
        add_mcmc_regularisers(scene, total, in.opacity_reg, in.scale_reg, double(scene.size()));
    adam_step(scene, total, adam, in.lr, in.adam);
    return loss;
}

}  // namespace radiant::distributed
