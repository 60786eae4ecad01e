#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "radiant/core/error.hpp"
#include "radiant/distributed/share_stages.hpp"
#include "radiant/render/cuda/device_buffer.hpp"
#include "radiant/train/cuda_step.hpp"
#include "share_stages_cuda.hpp"
#include "stage_helpers.hpp"

namespace radiant::distributed {
namespace {

// The calling thread's GPU, which NCCL sends from and into directly.
class DeviceSpace final : public BufferSpace {
  public:
    bool device() const override { return true; }
    void copy(void* to, const void* from, std::size_t bytes) const override {
        if (bytes > 0) RADIANT_CUDA_CHECK(cudaMemcpy(to, from, bytes, cudaMemcpyDefault));
    }
};

template <class T>
Segment segment_of(cuda::DeviceBuffer<T>& b, std::size_t first, std::size_t count) {
    return {reinterpret_cast<std::byte*>(b.data() + first), count * sizeof(T)};
}

// The share in a CudaStep, its ids on the host (the share's) and on the GPU (`ids`, the keys of a split's and
// the noise's draws).
class DeviceStore final : public ShareStore {
  public:
    DeviceStore(CudaStep& step, cuda::DeviceBuffer<std::uint64_t>& ids, Share& share)
        : step_(step), ids_(ids), share_(share) {}

    const std::vector<std::uint64_t>& ids() const override { return share_.ids; }
    int sh_degree() const override { return share_.scene.sh_degree; }
    std::vector<std::uint32_t> adc_actions(const AdcRule& rule) override { return step_.adc_actions(rule); }
    void adc_statistics(std::vector<float>& grad_accum, std::vector<std::int32_t>& denom) override {
        DensifyStats s = step_.stats();
        grad_accum = std::move(s.grad_accum);
        denom = std::move(s.denom);
    }
    void apply_adc(const std::vector<std::uint32_t>& actions, std::uint64_t seed,
                   std::vector<std::uint64_t> new_ids) override {
        step_.apply_adc(actions, seed, ids_.data());  // drawn from the ids before
        RADIANT_CHECK(new_ids.size() == step_.size(), "apply_adc: outputs and ids disagree");
        set_ids(std::move(new_ids));
    }
    void reset_opacity(double value) override { step_.reset_opacity(value); }
    std::vector<float> opacity_logits() override { return step_.opacity_logits(); }
    void mcmc_correct(const std::vector<std::uint32_t>& draws) override { step_.mcmc_correct(draws); }
    void add_noise(double scale, std::uint64_t seed) override { step_.add_noise(scale, seed, ids_.data()); }
    std::vector<float> means() override { return step_.means(); }
    void rows(const std::vector<std::uint32_t>& which, Scene& params, Scene& m, Scene& v) override {
        step_.rows(which, params, m, v);
    }
    void rearrange(const std::vector<std::uint32_t>& from, const Scene& params, const Scene& m,
                   const Scene& v, std::vector<std::uint64_t> ids) override {
        RADIANT_CHECK(ids.size() == from.size(), "rearrange: one id a row");
        step_.rearrange(from, params, m, v);
        set_ids(std::move(ids));
    }

  private:
    void set_ids(std::vector<std::uint64_t> ids) {
        share_.ids = std::move(ids);
        ids_.upload(share_.ids);  // on the step's stream, before the kernels that read it
    }

    CudaStep& step_;
    cuda::DeviceBuffer<std::uint64_t>& ids_;
    Share& share_;
};

// The stages on the calling thread's GPU: the share, its Adam moments and densification statistics live in
// a CudaStep between load() and store(); records and gradients stay on the GPU, where the exchanges take
// them.
class CudaShareStages final : public ShareStages {
  public:
    explicit CudaShareStages(const std::vector<BatchView>& views) {
        std::vector<TargetImage> images;
        for (std::size_t i = 0; i < views.size(); ++i) {
            RADIANT_CHECK(views[i].image == i, "the GPU stages need views[i].image == i");
            if (views[i].photo) {
                RADIANT_CHECK(views[i].photo->mask.data.empty(),
                              fmt::format("GPU stages: view {} has a mask, which multi-GPU training does not "
                                          "take yet",
                                          i));
                images.push_back(*views[i].photo);
                continue;
            }
            RADIANT_CHECK(views[i].target != nullptr && views[i].target->channels == 3,
                          fmt::format("GPU stages: view {} has no RGB target", i));
            const Image<float>& t = *views[i].target;
            TargetImage im;
            im.rgb = Image<std::uint8_t>(t.width, t.height, 3);
            for (std::size_t k = 0; k < t.data.size(); ++k)
                im.rgb.data[k] = std::uint8_t(std::lround(std::clamp(t.data[k], 0.0f, 1.0f) * 255.0f));
            images.push_back(std::move(im));
        }
        step_.set_images(images);
    }

    const BufferSpace& space() const override { return space_; }

    void load(const Share& share, const DensifyStats& stats) override {
        step_.set_scene(share.scene);
        step_.set_adam(share.adam);
        if (stats.grad_accum.size() == share.scene.size()) {
            step_.set_stats(stats);
        } else {
            DensifyStats fresh;
            fresh.reset(share.scene.size());
            step_.set_stats(fresh);
        }
        ids_.upload(share.ids);
        step_.synchronize();
    }
    void store(Share& share, DensifyStats& stats) override {
        share.scene = step_.scene();
        share.adam = step_.adam();
        stats = step_.stats();
    }

    std::unique_ptr<ShareStore> in_place(Share& share, DensifyStats&) override {
        return std::make_unique<DeviceStore>(step_, ids_, share);
    }

    void begin(Share& share, const BatchStepInput& in) override {
        RADIANT_CHECK(step_.size() == share.ids.size() && ids_.size() == share.ids.size(),
                      "GPU stages: the share changed without load() (densified, rebalanced?)");
        // Views keep their buffers from step to step (they never shrink), so a step allocates nothing
        // once the views have seen their largest counts.
        while (sent_.size() < in.views.size()) sent_.emplace_back().set_counter(&counter_);
        while (received_.size() < in.views.size()) received_.emplace_back().set_counter(&counter_);
        step_.begin_batch();
        projected_ = kNone;
    }

    std::size_t project(Share&, const BatchStepInput& in, std::size_t b) override {
        ViewBuffers& out = sent_[b];
        out.count = step_.project_share(*in.views[b].camera, in.settings, ids_.data(), out.index, out.ids,
                                        out.splats, out.footprints);
        projected_ = b;
        step_.synchronize();  // before another stream sends them
        return out.count;
    }

    std::vector<Segment> outgoing(const BatchStepInput& in, std::size_t b) override {
        ViewBuffers& out = sent_[b];
        std::vector<Segment> parts{segment_of(out.ids, 0, out.count), segment_of(out.splats, 0, out.count)};
        if (in.settings.shading == Shading::ray) parts.push_back(segment_of(out.footprints, 0, out.count));
        return parts;
    }

    std::vector<std::vector<Segment>> incoming(const BatchStepInput& in, std::size_t b,
                                               const std::vector<std::size_t>& counts) override {
        const bool ray = in.settings.shading == Shading::ray;
        ViewBuffers& r = received_[b];
        r.from = offsets_of(counts);
        const std::size_t total = r.from.back();
        r.ids.resize_discard(total);
        r.splats.resize_discard(total);
        r.footprints.resize_discard(ray ? total : 0);
        r.grads.resize_discard(total * grad_floats(in.settings));
        std::vector<std::vector<Segment>> room;
        for (std::size_t s = 0; s < counts.size(); ++s) {
            std::vector<Segment> parts{segment_of(r.ids, r.from[s], counts[s]),
                                       segment_of(r.splats, r.from[s], counts[s])};
            if (ray) parts.push_back(segment_of(r.footprints, r.from[s], counts[s]));
            room.push_back(std::move(parts));
        }
        return room;
    }

    ViewRender render(const BatchStepInput& in, std::size_t b) override {
        const bool ray = in.settings.shading == Shading::ray;
        ViewBuffers& r = received_[b];
        std::size_t senders = 0;
        for (std::size_t s = 0; s + 1 < r.from.size(); ++s) senders += r.from[s + 1] > r.from[s] ? 1 : 0;
        const BatchView& view = in.views[b];
        // One sender's records come in increasing id (a share is kept in id order); several are merged.
        const RenderedSplats rendered =
            step_.render_splats(*view.camera, in.settings, view.image, r.ids.data(), r.splats.data(),
                                ray ? r.footprints.data() : nullptr, r.from.back(), senders > 1,
                                in.lambda_ssim, 1.0 / double(in.views.size()), r.grads.data());
        step_.synchronize();
        return {rendered.loss, rendered.tile_pairs};
    }

    Segment returned(const BatchStepInput& in, std::size_t b, int s) override {
        ViewBuffers& r = received_[b];
        const std::size_t k = grad_floats(in.settings), at = r.from[std::size_t(s)];
        return segment_of(r.grads, at * k, (r.from[std::size_t(s) + 1] - at) * k);
    }

    Segment gradients(const BatchStepInput& in, std::size_t b) override {
        ViewBuffers& out = sent_[b];
        out.grads.resize_discard(out.count * grad_floats(in.settings));
        return segment_of(out.grads, 0, out.grads.size());
    }

    void backward(Share&, const BatchStepInput& in, std::size_t b, DensifyStats*) override {
        // The statistics stay on the GPU until store().
        ViewBuffers& out = sent_[b];
        // The step's projection of view b is still the step's own when b was projected last (render() works
        // in a rasterizer of its own).
        step_.add_splat_grads(*in.views[b].camera, in.settings, out.index.data(), out.grads.data(), out.count,
                              projected_ == b);
        projected_ = b;
    }

    void update(Share&, const BatchStepInput& in, double count) override {
        step_.apply_batch(in.lr, in.adam, in.opacity_reg, in.scale_reg, count);
    }

    // The step's peak and the exchange buffers' (an upper bound: the two need not peak together).
    std::size_t peak_bytes() const override { return step_.peak_bytes() + counter_.peak; }

  private:
    static std::size_t grad_floats(const RenderSettings& s) {
        return std::size_t(splat_grad_size(s.shading == Shading::ray));
    }

    // One view's records and gradients: as this rank projected it (count, index: its Gaussians' places in the
    // share) with the gradients that came back; or as it arrived here (rank s's records from from[s]) with
    // each record's gradient at its place.
    struct ViewBuffers {
        std::size_t count = 0;
        std::vector<std::size_t> from;
        cuda::DeviceBuffer<std::uint32_t> index;
        cuda::DeviceBuffer<std::uint64_t> ids;
        cuda::DeviceBuffer<SplatRecord> splats;
        cuda::DeviceBuffer<RayFootprintRecord> footprints;
        cuda::DeviceBuffer<float> grads;
        void set_counter(cuda::MemoryCounter* c) {
            index.set_counter(c);
            ids.set_counter(c);
            splats.set_counter(c);
            footprints.set_counter(c);
            grads.set_counter(c);
        }
    };

    CudaStep step_;
    DeviceSpace space_;
    cuda::MemoryCounter counter_;
    cuda::DeviceBuffer<std::uint64_t> ids_{&counter_};  // the share's ids, as load() was given them
    std::vector<ViewBuffers> sent_, received_;
    static constexpr std::size_t kNone = ~std::size_t(0);
    std::size_t projected_ = kNone;  // the batch view the step's rasterizer last projected the share into
};

}  // namespace

std::unique_ptr<ShareStages> make_cuda_share_stages(const std::vector<BatchView>& views) {
    return std::make_unique<CudaShareStages>(views);
}

}  // namespace radiant::distributed
