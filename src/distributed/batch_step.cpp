#include <algorithm>

#include "radiant/core/error.hpp"
#include "radiant/distributed/gaussian_parallel.hpp"
#include "radiant/render/cpu/render_cpu.hpp"
#include "radiant/train/loss.hpp"
#include "wire.hpp"

namespace radiant::distributed {
namespace {

// One projected Gaussian on its way to the rank that renders a view.
struct Projected2d {
    std::uint64_t id = 0;
    std::uint32_t local = 0;  // its index in the owner's share
    Vec2<float> mean2d{};
    Sym2<float> conic{};
    float depth = 0, opacity = 0, extent_sq = 0;
    Vec3<float> colour{};
    TileRect rect{};
    std::int32_t radius = 0;
};

// The raster backward's gradient of one projected Gaussian, on its way back to its owner.
struct Grad2d {
    std::uint32_t local = 0;
    Vec2<float> v_mean2d{};
    Sym2<float> v_conic{};
    Vec3<float> v_colour{};
    float v_opacity = 0;
};

void check_input(const BatchStepInput& in) {
    RADIANT_CHECK(!in.views.empty(), "a training batch needs at least one view");
    if (in.settings.shading != Shading::ewa)
        throw Error(
            "Gaussian-parallel training splits the `ewa` model's stages; `ray` shading is not split yet");
    for (const BatchView& v : in.views) RADIANT_CHECK(v.camera != nullptr, "a batch view without a camera");
}

void add(SceneGrads& total, const SceneGrads& g) {
    auto sum = [](std::vector<float>& a, const std::vector<float>& b) {
        for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
    };
    sum(total.means, g.means);
    sum(total.log_scales, g.log_scales);
    sum(total.quats, g.quats);
    sum(total.opacity_logits, g.opacity_logits);
    sum(total.sh, g.sh);
}

void add_stats(GrowthStats* stats, const SceneGrads& g) {
    if (stats == nullptr) return;
    for (std::size_t i = 0; i < g.size(); ++i) {
        stats->grad_norm_sum[i] += double(g.mean2d_grad_norms[i]);
        stats->views_seen[i] += g.visible[i];
    }
}

void resize_stats(GrowthStats* stats, std::size_t n) {
    if (stats == nullptr) return;
    stats->grad_norm_sum.resize(n, 0.0);
    stats->views_seen.resize(n, 0);
}

// The loss of a render and ∂(batch loss)/∂render: each view weighs 1/B in the batch's mean.
double view_loss(const Image<float>& rgb, const BatchView& view, const BatchStepInput& in,
                 Image<float>& v_rgb) {
    RADIANT_CHECK(view.target != nullptr, "the rank rendering a view needs its target image");
    const LossValue l = photometric_loss(rgb, *view.target, in.lambda_ssim, &v_rgb);
    const float weight = 1.0f / float(in.views.size());
    for (float& v : v_rgb.data) v *= weight;
    return l.total;
}

}  // namespace

BatchStepResult batch_step(Communicator& comm, Share& share, const BatchStepInput& in, GrowthStats* stats) {
    check_input(in);
    const int ranks = comm.size(), me = comm.rank();
    const std::size_t views = in.views.size(), n = share.scene.size();
    BatchStepResult result;

    // 1. Project the share into every view; what a view can see goes to the rank rendering it.
    std::vector<Projected<float>> own(views);
    std::vector<Bytes> out(static_cast<std::size_t>(ranks));
    for (std::size_t b = 0; b < views; ++b) {
        const Projected<float>& p = own[b];
        cpu::project_ewa(share.scene, *in.views[b].camera, in.settings, own[b]);
        std::vector<Projected2d> visible;
        for (std::size_t g = 0; g < n; ++g) {
            if (!p.visible(g)) continue;
            visible.push_back({share.ids[g], std::uint32_t(g), p.means2d[g], p.conics[g], p.depths[g],
                               p.opacities[g], p.extent_sq[g], p.colours[g], p.tile_rects[g], p.radii[g]});
        }
        Writer w(out[std::size_t(renderer_of(b, ranks))]);
        w.put(std::uint64_t(b));
        w.put(std::uint64_t(visible.size()));
        w.put(visible.data(), visible.size());
        result.sent_gaussians += visible.size();
    }
    const std::vector<Bytes> arrived = comm.all_to_all(std::move(out));

    // 2. Render this rank's views from every rank's Gaussians, in global-id order (the order one rank's
    //    scene has, which fixes the order of equal depths), then the loss and the raster backward.
    std::vector<std::vector<Projected2d>> incoming(views);
    std::vector<std::vector<int>> source(views);
    for (int s = 0; s < ranks; ++s) {
        Reader r(arrived[std::size_t(s)]);
        while (!r.done()) {
            const auto b = std::size_t(r.get<std::uint64_t>());
            const auto count = std::size_t(r.get<std::uint64_t>());
            RADIANT_CHECK(b < views && renderer_of(b, ranks) == me,
                          "a rank sent a view this rank does not render");
            const std::size_t at = incoming[b].size();
            incoming[b].resize(at + count);
            r.get(incoming[b].data() + at, count);
            source[b].resize(at + count, s);
        }
    }
    std::vector<double> losses(views, 0.0);
    std::vector<Bytes> back(static_cast<std::size_t>(ranks));
    for (std::size_t b = 0; b < views; ++b) {
        if (renderer_of(b, ranks) != me) continue;
        std::vector<std::size_t> order(incoming[b].size());
        for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
        std::sort(order.begin(), order.end(),
                  [&](std::size_t x, std::size_t y) { return incoming[b][x].id < incoming[b][y].id; });
        const Camera& cam = *in.views[b].camera;
        ForwardResult<float> fwd;
        fwd.grid = TileGrid(cam.width, cam.height, in.settings.tile_size);
        Projected<float>& p = fwd.projected;
        for (std::size_t k : order) {
            const Projected2d& e = incoming[b][k];
            p.means2d.push_back(e.mean2d);
            p.conics.push_back(e.conic);
            p.depths.push_back(e.depth);
            p.opacities.push_back(e.opacity);
            p.extent_sq.push_back(e.extent_sq);
            p.colours.push_back(e.colour);
            p.tile_rects.push_back(e.rect);
            p.radii.push_back(e.radius);
        }
        cpu::bin_and_sort(p, fwd.grid, in.settings, fwd.lists);
        cpu::raster_fwd(p, fwd.lists, fwd.grid, in.settings, fwd);
        result.rendered_pairs += fwd.lists.pairs();
        Image<float> v_rgb;
        losses[b] = view_loss(fwd.rgb, in.views[b], in, v_rgb);
        const RasterGrads<float> rg = cpu::raster_bwd(fwd, v_rgb, in.settings);
        // Back to the owners, view by view, in the order each owner sent them.
        std::vector<std::vector<Grad2d>> to(static_cast<std::size_t>(ranks));
        for (std::size_t j = 0; j < order.size(); ++j) {
            const std::size_t k = order[j];
            to[std::size_t(source[b][k])].push_back(
                {incoming[b][k].local, rg.v_means2d[j], rg.v_conics[j], rg.v_colours[j], rg.v_opacities[j]});
        }
        for (int s = 0; s < ranks; ++s) {
            Writer w(back[std::size_t(s)]);
            w.put(std::uint64_t(b));
            w.put(std::uint64_t(to[std::size_t(s)].size()));
            w.put(to[std::size_t(s)].data(), to[std::size_t(s)].size());
        }
    }
    const std::vector<Bytes> returned = comm.all_to_all(std::move(back));

    // 3. The projection backward of each view on the owner, summed in batch order, then Adam on the share.
    std::vector<RasterGrads<float>> grads(views);
    for (RasterGrads<float>& g : grads) {
        g.v_means2d.assign(n, {});
        g.v_conics.assign(n, {});
        g.v_colours.assign(n, {});
        g.v_opacities.assign(n, 0.0f);
    }
    for (const Bytes& from : returned) {
        Reader r(from);
        while (!r.done()) {
            const auto b = std::size_t(r.get<std::uint64_t>());
            const auto count = std::size_t(r.get<std::uint64_t>());
            RADIANT_CHECK(b < views, "a rank returned gradients of a view not in the batch");
            for (std::size_t k = 0; k < count; ++k) {
                const auto e = r.get<Grad2d>();
                RADIANT_CHECK(e.local < n,
                              "a rank returned a gradient for a Gaussian this rank does not own");
                grads[b].v_means2d[e.local] = e.v_mean2d;
                grads[b].v_conics[e.local] = e.v_conic;
                grads[b].v_colours[e.local] = e.v_colour;
                grads[b].v_opacities[e.local] = e.v_opacity;
            }
        }
    }
    SceneGrads total;
    total.resize_like(share.scene);
    resize_stats(stats, n);
    for (std::size_t b = 0; b < views; ++b) {
        ForwardResult<float> fwd;
        fwd.projected = std::move(own[b]);
        SceneGrads g;
        cpu::project_ewa_bwd(share.scene, *in.views[b].camera, in.settings, fwd, grads[b], g);
        add(total, g);
        add_stats(stats, g);
    }
    adam_step(share.scene, total, share.adam, in.lr, in.adam);

    comm.all_reduce_sum(losses);
    for (double l : losses) result.loss += l / double(views);
    return result;
}

double batch_step_single(Scene& scene, AdamState& adam, const BatchStepInput& in, GrowthStats* stats) {
    check_input(in);
    SceneGrads total;
    total.resize_like(scene);
    resize_stats(stats, scene.size());
    double loss = 0;
    for (const BatchView& view : in.views) {
        const ForwardResult<float> fwd = cpu::render_forward(scene, *view.camera, in.settings);
        Image<float> v_rgb;
        loss += view_loss(fwd.rgb, view, in, v_rgb) / double(in.views.size());
        const SceneGrads g = cpu::render_backward(scene, *view.camera, in.settings, fwd, v_rgb);
        add(total, g);
        add_stats(stats, g);
    }
    adam_step(scene, total, adam, in.lr, in.adam);
    return loss;
}

}  // namespace radiant::distributed
