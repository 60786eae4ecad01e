#include <chrono>
#include <limits>

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
    const auto rank_count = static_cast<std::size_t>(ranks);
    BatchStepResult result;
    auto last = std::chrono::steady_clock::now();
    auto lap = [&last](double& into) {
        const auto now = std::chrono::steady_clock::now();
        into += std::chrono::duration<double>(now - last).count();
        last = now;
    };
    auto renders = [&](std::size_t b) { return renderer_of(in, b, ranks); };
    stages.begin(share, in);

    // 1. Project the share into every view; each view's count goes to the rank rendering it, then what the
    //    view sees, in place where the stages keep it. The last view first: the backward below starts with
    //    the first, whose projection the stages may still hold.
    std::vector<std::uint64_t> counts(views);
    for (std::size_t b = views; b-- > 0;) {
        counts[b] = stages.project(share, in, b);
        result.sent_gaussians += counts[b];
    }
    lap(result.seconds.project);
    std::vector<Bytes> told(rank_count);
    for (std::size_t b = 0; b < views; ++b) {
        Writer w(told[std::size_t(renders(b))]);
        w.put(std::uint64_t(b));
        w.put(counts[b]);
    }
    const std::vector<Bytes> heard = comm.all_to_all(std::move(told));
    // arriving[b][s]: how many of view b's Gaussians rank s sends (for the views this rank renders)
    std::vector<std::vector<std::size_t>> arriving(views);
    std::vector<std::vector<bool>> heard_from(views, std::vector<bool>(rank_count, false));
    for (std::size_t s = 0; s < rank_count; ++s) {
        Reader r(heard[s]);
        while (!r.done()) {
            const auto b = std::size_t(r.get<std::uint64_t>());
            const auto count = std::size_t(r.get<std::uint64_t>());
            RADIANT_CHECK(b < views && renders(b) == me && !heard_from[b][s],
                          "a rank sent a view this rank does not render");
            heard_from[b][s] = true;
            arriving[b].resize(rank_count, 0);
            arriving[b][s] = count;
        }
    }
    std::vector<std::vector<Segment>> send(rank_count), recv(rank_count);
    auto append = [](std::vector<Segment>& to, const std::vector<Segment>& parts) {
        to.insert(to.end(), parts.begin(), parts.end());
    };
    for (std::size_t b = 0; b < views; ++b) append(send[std::size_t(renders(b))], stages.outgoing(in, b));
    for (std::size_t b = 0; b < views; ++b) {
        if (renders(b) != me) continue;
        for (std::size_t s = 0; s < rank_count; ++s)
            RADIANT_CHECK(heard_from[b][s], "a rank did not say what it sends of a view");
        const std::vector<std::vector<Segment>> room = stages.incoming(in, b, arriving[b]);
        for (std::size_t s = 0; s < rank_count; ++s) append(recv[s], room[s]);
    }
    comm.exchange(send, recv, stages.space());
    lap(result.seconds.send);

    // 2. Render this rank's views, then each Gaussian's gradient back to the rank that sent it.
    std::vector<double> sums(2 * views, 0.0);  // each view's loss, then its tile pairs
    for (std::size_t b = 0; b < views; ++b) {
        if (renders(b) != me) continue;
        const ViewRender rendered = stages.render(in, b);
        sums[b] = rendered.loss;
        sums[views + b] = double(rendered.tile_pairs);
        result.rendered_pairs += rendered.tile_pairs;
    }
    lap(result.seconds.render);
    for (auto& v : send) v.clear();
    for (auto& v : recv) v.clear();
    for (std::size_t b = 0; b < views; ++b) {
        if (renders(b) == me)
            for (int s = 0; s < ranks; ++s) send[std::size_t(s)].push_back(stages.returned(in, b, s));
        recv[std::size_t(renders(b))].push_back(stages.gradients(in, b));
    }
    comm.exchange(send, recv, stages.space());
    lap(result.seconds.send_back);

    // 3. The geometry backward of each view on the owner, summed in batch order, then the update.
    for (std::size_t b = 0; b < views; ++b) stages.backward(share, in, b, stats);
    std::vector<double> count{double(share.ids.size())};  // the scene may be on the stages' GPU
    if (in.opacity_reg > 0 || in.scale_reg > 0) comm.all_reduce_sum(count);
    stages.update(share, in, count[0]);
    lap(result.seconds.update);

    // One all-reduce: the views' losses and pairs, the step's time and the caller's values.
    sums.push_back(result.seconds.total());
    sums.insert(sums.end(), in.also_sum.begin(), in.also_sum.end());
    comm.all_reduce_sum(sums);
    for (std::size_t b = 0; b < views; ++b) result.loss += sums[b] / double(views);
    const auto at = [&](std::size_t k) { return sums.begin() + std::ptrdiff_t(k); };
    result.view_pairs.assign(at(views), at(2 * views));
    result.ranks_seconds = sums[2 * views];
    result.also_summed.assign(at(2 * views + 1), sums.end());
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
