#include <algorithm>
#include <cstring>
#include <numeric>

#include "radiant/core/error.hpp"
#include "radiant/distributed/share_stages.hpp"
#include "radiant/render/cpu/ray_forward.hpp"
#include "radiant/render/cpu/render_cpu.hpp"
#include "radiant/train/loss.hpp"
#include "stage_helpers.hpp"

namespace radiant::distributed {
namespace {

using cpu::RayCamera;
using cpu::RayProjected;

// One projected Gaussian on its way to the rank that renders a view.
struct Projected2d {
    Vec2<float> mean2d{};
    Sym2<float> conic{};
    float depth = 0, opacity = 0, extent_sq = 0;
    Vec3<float> colour{};
    TileRect rect{};
    std::int32_t radius = 0;
};

// What the `ray` model's raster needs besides: the camera-frame footprint (after the Projected2d record).
struct RayPart {
    Vec3<float> mean_cam{};
    Mat3<float> whitening{};
    SilhouetteBounds<float> bounds{};
};

// The raster backward's gradient of one projected Gaussian, on its way back to its owner (`ray`: its
// camera-frame RayHitSums<float> instead).
struct Grad2d {
    Vec2<float> v_mean2d{};
    Sym2<float> v_conic{};
    Vec3<float> v_colour{};
    float v_opacity = 0;
};

template <class T>
T read_at(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

TileGrid grid_of(const Camera& cam, const RenderSettings& s) {
    return TileGrid(cam.width, cam.height, s.tile_size);
}

template <class T>
Segment segment_of(std::vector<T>& v, std::size_t first, std::size_t count) {
    return {reinterpret_cast<std::byte*>(v.data() + first), count * sizeof(T)};
}

// The CPU backend's stages on the host share: each view's projection is kept from `project` for the
// backward, as one process keeps its forward.
class CpuShareStages final : public ShareStages {
  public:
    const BufferSpace& space() const override { return host_space(); }

    void begin(Share& share, const BatchStepInput& in) override {
        own_.assign(in.views.size(), {});
        own_ray_.assign(in.views.size(), {});
        rays_.assign(in.views.size(), {});
        sent_.assign(in.views.size(), {});
        received_.assign(in.views.size(), {});
        total_ = {};
        total_.resize_like(share.scene);
    }

    std::size_t project(Share& share, const BatchStepInput& in, std::size_t b) override {
        const Camera& cam = *in.views[b].camera;
        const bool ray = in.settings.shading == Shading::ray;
        Projected<float>& p = own_[b];
        if (ray) {
            rays_[b] = cpu::ray_camera<float>(cam, grid_of(cam, in.settings));
            cpu::project_ray(share.scene, cam, in.settings, rays_[b], grid_of(cam, in.settings), p,
                             own_ray_[b]);
        } else {
            cpu::project_ewa(share.scene, cam, in.settings, p);
        }
        Sent& out = sent_[b];
        Writer w(out.records);
        for (std::size_t g = 0; g < share.scene.size(); ++g) {
            if (!p.visible(g)) continue;
            out.locals.push_back(std::uint32_t(g));
            out.ids.push_back(share.ids[g]);
            w.put(Projected2d{p.means2d[g], p.conics[g], p.depths[g], p.opacities[g], p.extent_sq[g],
                              p.colours[g], p.tile_rects[g], p.radii[g]});
            if (ray) w.put(RayPart{own_ray_[b].means[g], own_ray_[b].whitening[g], own_ray_[b].bounds[g]});
        }
        return out.locals.size();
    }

    std::vector<Segment> outgoing(const BatchStepInput&, std::size_t b) override {
        Sent& out = sent_[b];
        return {segment_of(out.ids, 0, out.ids.size()), segment_of(out.records, 0, out.records.size())};
    }

    std::vector<std::vector<Segment>> incoming(const BatchStepInput& in, std::size_t b,
                                               const std::vector<std::size_t>& counts) override {
        Received& r = received_[b];
        const std::size_t stride = record_bytes(in.settings);
        r.from = offsets_of(counts);
        r.ids.resize(r.from.back());
        r.records.resize(r.from.back() * stride);
        std::vector<std::vector<Segment>> room;
        for (std::size_t s = 0; s < counts.size(); ++s)
            room.push_back({segment_of(r.ids, r.from[s], counts[s]),
                            segment_of(r.records, r.from[s] * stride, counts[s] * stride)});
        return room;
    }

    ViewRender render(const BatchStepInput& in, std::size_t b) override {
        const bool ray = in.settings.shading == Shading::ray;
        const std::size_t stride = record_bytes(in.settings);
        const Camera& cam = *in.views[b].camera;
        Received& v = received_[b];
        const std::size_t count = v.ids.size();
        // Each rank's records come in increasing id (a share is kept in id order): from one sender they
        // are in order already.
        std::vector<std::size_t> order(count);
        std::iota(order.begin(), order.end(), std::size_t(0));
        if (!std::is_sorted(v.ids.begin(), v.ids.end()))
            std::sort(order.begin(), order.end(),
                      [&](std::size_t x, std::size_t y) { return v.ids[x] < v.ids[y]; });
        ForwardResult<float> fwd;
        fwd.grid = grid_of(cam, in.settings);
        Projected<float>& p = fwd.projected;
        RayProjected<float> rp;
        for (std::size_t k : order) {
            const std::byte* at = v.records.data() + k * stride;
            const auto e = read_at<Projected2d>(at);
            p.means2d.push_back(e.mean2d);
            p.conics.push_back(e.conic);
            p.depths.push_back(e.depth);
            p.opacities.push_back(e.opacity);
            p.extent_sq.push_back(e.extent_sq);
            p.colours.push_back(e.colour);
            p.tile_rects.push_back(e.rect);
            p.radii.push_back(e.radius);
            if (!ray) continue;
            const auto r = read_at<RayPart>(at + sizeof(Projected2d));
            rp.means.push_back(r.mean_cam);
            rp.whitening.push_back(r.whitening);
            rp.bounds.push_back(r.bounds);
        }
        if (ray) {
            cpu::bin_ray(p, rp, rays_[b], fwd.grid, fwd.lists);
            cpu::raster_ray(p, rp, rays_[b], in.settings, fwd);
        } else {
            cpu::bin_and_sort(p, fwd.grid, in.settings, fwd.lists);
            cpu::raster_fwd(p, fwd.lists, fwd.grid, in.settings, fwd);
        }
        Image<float> v_rgb;
        ViewRender out;
        out.loss = view_loss(fwd.rgb, in.views[b], in, v_rgb);
        out.tile_pairs = fwd.lists.pairs();
        // Each gradient at its record's place, so that every sender's come back as one block.
        const std::size_t g_stride = grad_bytes(in.settings);
        v.grads.assign(count * g_stride, std::byte{0});
        auto put = [&](std::size_t j, const auto& value) {
            std::memcpy(v.grads.data() + order[j] * g_stride, &value, sizeof(value));
        };
        if (ray) {
            const std::vector<RayHitSums<float>> sums =
                cpu::raster_bwd_ray(fwd, rp, rays_[b], v_rgb, in.settings);
            for (std::size_t j = 0; j < count; ++j) put(j, sums[j]);
        } else {
            const RasterGrads<float> rg = cpu::raster_bwd(fwd, v_rgb, in.settings);
            for (std::size_t j = 0; j < count; ++j)
                put(j, Grad2d{rg.v_means2d[j], rg.v_conics[j], rg.v_colours[j], rg.v_opacities[j]});
        }
        return out;
    }

    Segment returned(const BatchStepInput& in, std::size_t b, int s) override {
        Received& v = received_[b];
        const std::size_t g_stride = grad_bytes(in.settings);
        const auto r = std::size_t(s);
        return segment_of(v.grads, v.from[r] * g_stride, (v.from[r + 1] - v.from[r]) * g_stride);
    }

    Segment gradients(const BatchStepInput& in, std::size_t b) override {
        Sent& out = sent_[b];
        out.grads.resize(out.locals.size() * grad_bytes(in.settings));
        return segment_of(out.grads, 0, out.grads.size());
    }

    void backward(Share& share, const BatchStepInput& in, std::size_t b, DensifyStats* stats) override {
        const bool ray = in.settings.shading == Shading::ray;
        const std::size_t n = share.scene.size(), stride = grad_bytes(in.settings);
        const Camera& cam = *in.views[b].camera;
        const std::vector<std::uint32_t>& locals = sent_[b].locals;
        const std::byte* grads = sent_[b].grads.data();
        SceneGrads g;
        ForwardResult<float> fwd;
        fwd.projected = std::move(own_[b]);
        if (ray) {
            std::vector<RayHitSums<float>> sums(n);
            for (std::size_t k = 0; k < locals.size(); ++k)
                sums[locals[k]] = read_at<RayHitSums<float>>(grads + k * stride);
            cpu::project_ray_bwd(share.scene, cam, in.settings, fwd.projected, own_ray_[b], sums, g);
        } else {
            RasterGrads<float> rg;
            rg.v_means2d.assign(n, {});
            rg.v_conics.assign(n, {});
            rg.v_colours.assign(n, {});
            rg.v_opacities.assign(n, 0.0f);
            for (std::size_t k = 0; k < locals.size(); ++k) {
                const auto e = read_at<Grad2d>(grads + k * stride);
                rg.v_means2d[locals[k]] = e.v_mean2d;
                rg.v_conics[locals[k]] = e.v_conic;
                rg.v_colours[locals[k]] = e.v_colour;
                rg.v_opacities[locals[k]] = e.v_opacity;
            }
            cpu::project_ewa_bwd(share.scene, cam, in.settings, fwd, rg, g);
        }
        add_grads(total_, g);
        add_stats(stats, g, fwd.projected.radii);
    }

    void update(Share& share, const BatchStepInput& in, double count) override {
        if (in.opacity_reg > 0 || in.scale_reg > 0)
            add_mcmc_regularisers(share.scene, total_, in.opacity_reg, in.scale_reg, count);
        adam_step(share.scene, total_, share.adam, in.lr, in.adam);
    }

  private:
    std::size_t record_bytes(const RenderSettings& s) const {
        return sizeof(Projected2d) + (s.shading == Shading::ray ? sizeof(RayPart) : 0);
    }
    std::size_t grad_bytes(const RenderSettings& s) const {
        return s.shading == Shading::ray ? sizeof(RayHitSums<float>) : sizeof(Grad2d);
    }

    // A view as this rank projected it: its Gaussians' indices in the share, their ids and records, and
    // the gradients that came back for them.
    struct Sent {
        std::vector<std::uint32_t> locals;
        std::vector<std::uint64_t> ids;
        Bytes records, grads;
    };
    // A view this rank renders: what every rank sent, laid in rank order (rank s's from from[s]), and the
    // gradient of each record at its place.
    struct Received {
        std::vector<std::uint64_t> ids;
        Bytes records, grads;
        std::vector<std::size_t> from;
    };

    std::vector<Sent> sent_;
    std::vector<Received> received_;
    std::vector<Projected<float>> own_;
    std::vector<RayProjected<float>> own_ray_;
    std::vector<RayCamera<float>> rays_;
    SceneGrads total_;
};

}  // namespace

std::unique_ptr<ShareStages> make_cpu_share_stages() {
    return std::make_unique<CpuShareStages>();
}

}  // namespace radiant::distributed
