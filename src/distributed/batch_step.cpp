#include <algorithm>
#include <limits>

#include "radiant/core/error.hpp"
#include "radiant/distributed/gaussian_parallel.hpp"
#include "radiant/render/cpu/ray_forward.hpp"
#include "radiant/render/cpu/render_cpu.hpp"
#include "radiant/train/loss.hpp"
#include "wire.hpp"

namespace radiant::distributed {
namespace {

using cpu::RayCamera;
using cpu::RayProjected;

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

// What the `ray` model's raster needs besides: the camera-frame footprint (after the Projected2d records).
struct RayPart {
    Vec3<float> mean_cam{};
    Mat3<float> whitening{};
    SilhouetteBounds<float> bounds{};
};

// The `ray` model's raster backward of one projected Gaussian: its camera-frame sums.
struct RayGrad {
    std::uint32_t local = 0;
    RayHitSums<float> sums{};
};

// The raster backward's gradient of one projected Gaussian, on its way back to its owner.
struct Grad2d {
    std::uint32_t local = 0;
    Vec2<float> v_mean2d{};
    Sym2<float> v_conic{};
    Vec3<float> v_colour{};
    float v_opacity = 0;
};

void check_input(const BatchStepInput& in, int ranks) {
    RADIANT_CHECK(!in.views.empty(), "a training batch needs at least one view");
    RADIANT_CHECK(in.renderers.empty() || in.renderers.size() == in.views.size(),
                  "a batch's renderers must name one rank per view");
    for (int r : in.renderers) RADIANT_CHECK(r >= 0 && r < ranks, "a batch view's renderer is not a rank");
    for (const BatchView& v : in.views) RADIANT_CHECK(v.camera != nullptr, "a batch view without a camera");
}

TileGrid grid_of(const Camera& cam, const RenderSettings& s) {
    return TileGrid(cam.width, cam.height, s.tile_size);
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

// The CPU backend's sums (DensifyStats::add_view), sized to the share when it is new or has changed.
void add_stats(DensifyStats* stats, const SceneGrads& g, const std::vector<std::int32_t>& radii) {
    if (stats == nullptr) return;
    if (stats->grad_accum.size() != g.size()) stats->reset(g.size());
    stats->add_view(g, radii);
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

// One returned gradient into the owner's per-Gaussian arrays; returns its local index for the caller to
// check (an index out of range writes nothing).
std::uint32_t read_grad(Reader& r, RasterGrads<float>& g) {
    const auto e = r.get<Grad2d>();
    if (e.local >= g.v_opacities.size()) return e.local;
    g.v_means2d[e.local] = e.v_mean2d;
    g.v_conics[e.local] = e.v_conic;
    g.v_colours[e.local] = e.v_colour;
    g.v_opacities[e.local] = e.v_opacity;
    return e.local;
}

std::uint32_t read_ray_grad(Reader& r, std::vector<RayHitSums<float>>& sums) {
    const auto e = r.get<RayGrad>();
    if (e.local < sums.size()) sums[e.local] = e.sums;
    return e.local;
}

// What a rendering rank received for one view: every rank's visible Gaussians and who sent each.
struct Incoming {
    std::vector<Projected2d> records;
    std::vector<RayPart> ray;  // `ray` shading: one per record
    std::vector<int> source;
};

// Renders one view from the Gaussians every rank sent, merged in global-id order (the order one process's
// scene has, which fixes the order of equal depths), takes its loss and the raster backward, and sorts each
// Gaussian's gradient into the list of the rank that owns it. Returns the view's tile pairs.
std::size_t render_view(const Incoming& v, const BatchStepInput& in, std::size_t b,
                        const RayCamera<float>* rays, double& loss, std::vector<std::vector<Grad2d>>& to,
                        std::vector<std::vector<RayGrad>>& to_ray) {
    const std::vector<Projected2d>& e = v.records;
    std::vector<std::size_t> order(e.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return e[x].id < e[y].id; });
    const Camera& cam = *in.views[b].camera;
    ForwardResult<float> fwd;
    fwd.grid = grid_of(cam, in.settings);
    Projected<float>& p = fwd.projected;
    for (std::size_t k : order) {
        p.means2d.push_back(e[k].mean2d);
        p.conics.push_back(e[k].conic);
        p.depths.push_back(e[k].depth);
        p.opacities.push_back(e[k].opacity);
        p.extent_sq.push_back(e[k].extent_sq);
        p.colours.push_back(e[k].colour);
        p.tile_rects.push_back(e[k].rect);
        p.radii.push_back(e[k].radius);
    }
    RayProjected<float> rp;
    if (rays) {
        for (std::size_t k : order) {
            rp.means.push_back(v.ray[k].mean_cam);
            rp.whitening.push_back(v.ray[k].whitening);
            rp.bounds.push_back(v.ray[k].bounds);
        }
        cpu::bin_ray(p, rp, *rays, fwd.grid, fwd.lists);
        cpu::raster_ray(p, rp, *rays, in.settings, fwd);
    } else {
        cpu::bin_and_sort(p, fwd.grid, in.settings, fwd.lists);
        cpu::raster_fwd(p, fwd.lists, fwd.grid, in.settings, fwd);
    }
    Image<float> v_rgb;
    loss = view_loss(fwd.rgb, in.views[b], in, v_rgb);
    if (rays) {
        const std::vector<RayHitSums<float>> sums = cpu::raster_bwd_ray(fwd, rp, *rays, v_rgb, in.settings);
        for (std::size_t j = 0; j < order.size(); ++j)
            to_ray[std::size_t(v.source[order[j]])].push_back({e[order[j]].local, sums[j]});
    } else {
        const RasterGrads<float> rg = cpu::raster_bwd(fwd, v_rgb, in.settings);
        for (std::size_t j = 0; j < order.size(); ++j)
            to[std::size_t(v.source[order[j]])].push_back(
                {e[order[j]].local, rg.v_means2d[j], rg.v_conics[j], rg.v_colours[j], rg.v_opacities[j]});
    }
    return fwd.lists.pairs();
}

}  // namespace

BatchStepResult batch_step(Communicator& comm, Share& share, const BatchStepInput& in, DensifyStats* stats) {
    check_input(in, comm.size());
    const int ranks = comm.size(), me = comm.rank();
    const std::size_t views = in.views.size(), n = share.scene.size();
    const bool ray = in.settings.shading == Shading::ray;
    BatchStepResult result;

    // 1. Project the share into every view; what a view can see goes to the rank rendering it. The `ray`
    //    model's camera-frame footprints follow the view's records.
    std::vector<Projected<float>> own(views);
    std::vector<RayProjected<float>> own_ray(views);
    std::vector<RayCamera<float>> rays(views);
    std::vector<Bytes> out(static_cast<std::size_t>(ranks));
    for (std::size_t b = 0; b < views; ++b) {
        const Camera& cam = *in.views[b].camera;
        const Projected<float>& p = own[b];
        if (ray) {
            rays[b] = cpu::ray_camera<float>(cam, grid_of(cam, in.settings));
            cpu::project_ray(share.scene, cam, in.settings, rays[b], grid_of(cam, in.settings), own[b],
                             own_ray[b]);
        } else {
            cpu::project_ewa(share.scene, cam, in.settings, own[b]);
        }
        std::vector<Projected2d> visible;
        std::vector<RayPart> visible_ray;
        for (std::size_t g = 0; g < n; ++g) {
            if (!p.visible(g)) continue;
            visible.push_back({share.ids[g], std::uint32_t(g), p.means2d[g], p.conics[g], p.depths[g],
                               p.opacities[g], p.extent_sq[g], p.colours[g], p.tile_rects[g], p.radii[g]});
            if (ray)
                visible_ray.push_back({own_ray[b].means[g], own_ray[b].whitening[g], own_ray[b].bounds[g]});
        }
        Writer w(out[std::size_t(renderer_of(in, b, ranks))]);
        w.put(std::uint64_t(b));
        w.put(std::uint64_t(visible.size()));
        w.put(visible.data(), visible.size());
        w.put(visible_ray.data(), visible_ray.size());
        result.sent_gaussians += visible.size();
    }
    const std::vector<Bytes> arrived = comm.all_to_all(std::move(out));

    // 2. Render this rank's views from every rank's Gaussians, then the loss and the raster backward.
    std::vector<Incoming> incoming(views);
    for (int s = 0; s < ranks; ++s) {
        Reader r(arrived[std::size_t(s)]);
        while (!r.done()) {
            const auto b = std::size_t(r.get<std::uint64_t>());
            const auto count = std::size_t(r.get<std::uint64_t>());
            RADIANT_CHECK(b < views && renderer_of(in, b, ranks) == me,
                          "a rank sent a view this rank does not render");
            Incoming& v = incoming[b];
            const std::size_t at = v.records.size();
            v.records.resize(at + count);
            r.get(v.records.data() + at, count);
            if (ray) {
                v.ray.resize(at + count);
                r.get(v.ray.data() + at, count);
            }
            v.source.resize(at + count, s);
        }
    }
    std::vector<double> sums(2 * views, 0.0);  // each view's loss, then its tile pairs
    std::vector<Bytes> back(static_cast<std::size_t>(ranks));
    for (std::size_t b = 0; b < views; ++b) {
        if (renderer_of(in, b, ranks) != me) continue;
        std::vector<std::vector<Grad2d>> to(static_cast<std::size_t>(ranks));
        std::vector<std::vector<RayGrad>> to_ray(static_cast<std::size_t>(ranks));
        const std::size_t pairs =
            render_view(incoming[b], in, b, ray ? &rays[b] : nullptr, sums[b], to, to_ray);
        result.rendered_pairs += pairs;
        sums[views + b] = double(pairs);
        // Back to the owners: each one's Gaussians of this view, as one block.
        for (int s = 0; s < ranks; ++s) {
            Writer w(back[std::size_t(s)]);
            w.put(std::uint64_t(b));
            w.put(std::uint64_t(ray ? to_ray[std::size_t(s)].size() : to[std::size_t(s)].size()));
            w.put(to[std::size_t(s)].data(), to[std::size_t(s)].size());
            w.put(to_ray[std::size_t(s)].data(), to_ray[std::size_t(s)].size());
        }
    }
    const std::vector<Bytes> returned = comm.all_to_all(std::move(back));

    // 3. The projection backward of each view on the owner, summed in batch order, then Adam on the share.
    std::vector<RasterGrads<float>> grads(views);
    std::vector<std::vector<RayHitSums<float>>> ray_grads(views);
    for (std::size_t b = 0; b < views; ++b) {
        if (ray) {
            ray_grads[b].assign(n, {});
            continue;
        }
        RasterGrads<float>& g = grads[b];
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
                const std::uint32_t local = ray ? read_ray_grad(r, ray_grads[b]) : read_grad(r, grads[b]);
                RADIANT_CHECK(local < n, "a rank returned a gradient for a Gaussian this rank does not own");
            }
        }
    }
    SceneGrads total;
    total.resize_like(share.scene);
    for (std::size_t b = 0; b < views; ++b) {
        const Camera& cam = *in.views[b].camera;
        SceneGrads g;
        ForwardResult<float> fwd;
        fwd.projected = std::move(own[b]);
        if (ray)
            cpu::project_ray_bwd(share.scene, cam, in.settings, fwd.projected, own_ray[b], ray_grads[b], g);
        else
            cpu::project_ewa_bwd(share.scene, cam, in.settings, fwd, grads[b], g);
        add(total, g);
        add_stats(stats, g, fwd.projected.radii);
    }
    if (in.opacity_reg > 0 || in.scale_reg > 0) {
        std::vector<double> count{double(share.scene.size())};
        comm.all_reduce_sum(count);
        add_mcmc_regularisers(share.scene, total, in.opacity_reg, in.scale_reg, count[0]);
    }
    adam_step(share.scene, total, share.adam, in.lr, in.adam);

    comm.all_reduce_sum(sums);
    for (std::size_t b = 0; b < views; ++b) result.loss += sums[b] / double(views);
    result.view_pairs.assign(sums.begin() + std::ptrdiff_t(views), sums.end());
    return result;
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
        add(total, g);
        add_stats(stats, g, fwd.projected.radii);
    }
    if (in.opacity_reg > 0 || in.scale_reg > 0)
        add_mcmc_regularisers(scene, total, in.opacity_reg, in.scale_reg, double(scene.size()));
    adam_step(scene, total, adam, in.lr, in.adam);
    return loss;
}

}  // namespace radiant::distributed
