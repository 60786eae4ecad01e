#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "radiant/core/error.hpp"
#include "radiant/distributed/share_stages.hpp"
#include "radiant/train/cuda_step.hpp"
#include "share_stages_cuda.hpp"

namespace radiant::distributed {
namespace {

// The stages on the calling thread's GPU: the share, its Adam moments and densification statistics live in
// a CudaStep between load() and store(); records and gradients cross the host on their way between ranks.
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

    std::size_t record_bytes(const RenderSettings& s) const override {
        return sizeof(SplatRecord) + (s.shading == Shading::ray ? sizeof(RayFootprintRecord) : 0);
    }
    std::size_t grad_bytes(const RenderSettings& s) const override {
        return sizeof(float) * std::size_t(splat_grad_size(s.shading == Shading::ray));
    }

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
    }
    void store(Share& share, DensifyStats& stats) override {
        share.scene = step_.scene();
        share.adam = step_.adam();
        stats = step_.stats();
    }

    void begin(Share& share, const BatchStepInput&) override {
        RADIANT_CHECK(step_.size() == share.scene.size(),
                      "GPU stages: the share changed without load() (densified, rebalanced?)");
        step_.begin_batch();
    }

    void project(Share&, const BatchStepInput& in, std::size_t b, std::vector<std::uint32_t>& locals,
                 Bytes& records) override {
        ProjectedShare p = step_.project_share(*in.views[b].camera, in.settings);
        const bool ray = in.settings.shading == Shading::ray;
        const std::size_t stride = record_bytes(in.settings);
        records.resize(p.index.size() * stride);
        for (std::size_t k = 0; k < p.index.size(); ++k) {
            std::memcpy(records.data() + k * stride, &p.splats[k], sizeof(SplatRecord));
            if (ray)
                std::memcpy(records.data() + k * stride + sizeof(SplatRecord), &p.footprints[k],
                            sizeof(RayFootprintRecord));
        }
        locals = std::move(p.index);
    }

    ViewRender render(const BatchStepInput& in, std::size_t b, std::size_t count, const std::byte* records,
                      Bytes& grads) override {
        const bool ray = in.settings.shading == Shading::ray;
        const std::size_t stride = record_bytes(in.settings);
        std::vector<SplatRecord> splats(count);
        std::vector<RayFootprintRecord> footprints(ray ? count : 0);
        for (std::size_t k = 0; k < count; ++k) {
            std::memcpy(&splats[k], records + k * stride, sizeof(SplatRecord));
            if (ray)
                std::memcpy(&footprints[k], records + k * stride + sizeof(SplatRecord),
                            sizeof(RayFootprintRecord));
        }
        const BatchView& view = in.views[b];
        const RenderedSplats r =
            step_.render_splats(*view.camera, in.settings, view.image, splats, footprints, in.lambda_ssim,
                                1.0 / double(in.views.size()));
        grads.resize(r.grads.size() * sizeof(float));
        std::memcpy(grads.data(), r.grads.data(), grads.size());
        return {r.loss, r.tile_pairs};
    }

    void backward(Share&, const BatchStepInput& in, std::size_t b, const std::vector<std::uint32_t>& locals,
                  const std::byte* grads, DensifyStats*) override {
        // The statistics stay on the GPU until store().
        std::vector<float> g(locals.size() *
                             std::size_t(splat_grad_size(in.settings.shading == Shading::ray)));
        std::memcpy(g.data(), grads, g.size() * sizeof(float));
        step_.add_splat_grads(*in.views[b].camera, in.settings, locals, g);
    }

    void update(Share&, const BatchStepInput& in, double count) override {
        step_.apply_batch(in.lr, in.adam, in.opacity_reg, in.scale_reg, count);
    }

    std::size_t peak_bytes() const override { return step_.peak_bytes(); }

  private:
    CudaStep step_;
};

}  // namespace

std::unique_ptr<ShareStages> make_cuda_share_stages(const std::vector<BatchView>& views) {
    return std::make_unique<CudaShareStages>(views);
}

}  // namespace radiant::distributed
