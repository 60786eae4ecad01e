#include <fmt/format.h>

#include <algorithm>
#include <cub/device/device_radix_sort.cuh>

#include "radiant/core/error.hpp"
#include "radiant/train/cuda_step.hpp"
#include "step_state.hpp"

// CudaStep's stages of Gaussian-parallel training (issue 25): the projection of a rank's share, the raster
// of a view from records every rank projected, and the geometry backward and Adam of the share.
namespace radiant {

namespace {

constexpr int kBlock = 256;

__global__ void gather_ids_kernel(const std::uint64_t* ids, const std::uint32_t* index, std::size_t count,
                                  std::uint64_t* out) {
    const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < count) out[k] = ids[index[k]];
}

__global__ void iota_kernel(std::uint32_t* out, std::size_t count) {
    const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < count) out[k] = std::uint32_t(k);
}

unsigned blocks_of(std::size_t count) {
    return unsigned((count + kBlock - 1) / kBlock);
}

}  // namespace

std::size_t CudaStep::project_share(const Camera& camera, const RenderSettings& settings,
                                    const std::uint64_t* ids, cuda::DeviceBuffer<std::uint32_t>& index,
                                    cuda::DeviceBuffer<std::uint64_t>& view_ids,
                                    cuda::DeviceBuffer<SplatRecord>& splats,
                                    cuda::DeviceBuffer<RayFootprintRecord>& footprints) {
    Impl& d = *impl_;
    d.raster.project(d.view(), camera, settings, d.stream);
    const std::size_t count = d.raster.gather_visible(index, splats, footprints, d.stream);
    view_ids.resize_discard(count);
    if (count > 0) {
        gather_ids_kernel<<<blocks_of(count), kBlock, 0, d.stream>>>(ids, index.data(), count,
                                                                     view_ids.data());
        RADIANT_CUDA_CHECK_LAUNCH("gather_ids_kernel");
    }
    return count;
}

RenderedSplats CudaStep::render_splats(const Camera& camera, const RenderSettings& settings,
                                       std::size_t image, const std::uint64_t* ids, const SplatRecord* splats,
                                       const RayFootprintRecord* footprints, std::size_t count, bool by_id,
                                       double lambda_ssim, double weight, float* grads) {
    Impl& d = *impl_;
    RADIANT_CHECK(weight > 0, "CUDA step: a view's weight in its batch must be positive");
    RADIANT_CHECK(count < (std::size_t(1) << 32), "CUDA step: more records than 32-bit indices reach");
    const DeviceTarget target = device_image(d, image, camera);
    const std::uint32_t* order = nullptr;
    if (by_id && count > 1) {
        d.merge_ids.resize_discard(count);
        d.merge_from.resize_discard(count);
        d.merge_order.resize_discard(count);
        iota_kernel<<<blocks_of(count), kBlock, 0, d.stream>>>(d.merge_from.data(), count);
        RADIANT_CUDA_CHECK_LAUNCH("iota_kernel");
        std::size_t bytes = 0;
        RADIANT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, ids, d.merge_ids.data(),
                                                           d.merge_from.data(), d.merge_order.data(), count,
                                                           0, 64, d.stream));
        d.scan_scratch.resize_discard(std::max(d.scan_scratch.size(), bytes));
        RADIANT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(d.scan_scratch.data(), bytes, ids,
                                                           d.merge_ids.data(), d.merge_from.data(),
                                                           d.merge_order.data(), count, 0, 64, d.stream));
        order = d.merge_order.data();
    }
    RenderedSplats out;
    Rasterizer& raster = d.record_raster;
    out.tile_pairs = d.pairs =
        raster.forward_splats(camera, settings, splats, footprints, count, order, d.stream);
    const std::size_t values = std::size_t(camera.width) * std::size_t(camera.height) * 3;
    d.v_rgb.resize_discard(values);
    d.sums.zero(d.stream);
    d.bad.zero(d.stream);
    // The gradient of weight × the loss: the sums over counted / weight values.
    DeviceTarget weighted = target;
    weighted.counted = target.counted / weight;
    photometric(d, camera, raster.rgb(), weighted, float(lambda_ssim), d.v_rgb.data());
    raster.backward_footprints(d.v_rgb.data(), d.stream);
    raster.splat_grads(grads, order, d.stream);
    read_sums(d);
    const double l1 = d.pinned_sums[kSumAbs] / target.counted;
    const double ssim = lambda_ssim > 0 ? d.pinned_sums[kSumSsim] / target.counted : 1.0;
    out.loss = (1 - lambda_ssim) * l1 + lambda_ssim * (1 - ssim);
    return out;
}

void CudaStep::begin_batch() {
    Impl& d = *impl_;
    d.batch_grads.resize_discard(d.n, d.sh_degree);  // the first view's gradients take its place
    d.batch_views = 0;
    d.sums.zero(d.stream);
}

void CudaStep::add_splat_grads(const Camera& camera, const RenderSettings& settings,
                               const std::uint32_t* index, const float* grads, std::size_t count,
                               bool projected) {
    Impl& d = *impl_;
    RADIANT_CHECK(d.batch_grads.means.size() == 3 * d.n, "CUDA step: add_splat_grads outside a batch");
    if (!projected) d.raster.project(d.view(), camera, settings, d.stream);
    d.raster.set_splat_grads(index, grads, count, d.stream);
    // The geometry backward writes every Gaussian's entries (zeros where culled): the batch's first view
    // becomes the sum as it is (0 + x is x), the others are added to it in batch order.
    d.raster.backward_geometry(d.view(), d.grads_view(), d.stream);
    if (d.batch_views++ == 0) {
        d.batch_grads.swap(d.grads);
    } else {
        auto into = d.batch_grads.all();
        auto from = d.grads.all();
        for (std::size_t k = 0; k < into.size(); ++k)
            launch_add_into(into[k]->data(), from[k]->data(), into[k]->size(), d.stream);
    }
    launch_accumulate_stats(d.stats_view(), d.norms.data(), d.raster.radii(), d.n, d.sums.data(), d.stream);
}

void CudaStep::apply_batch(const LearningRates& lr, const AdamConfig& config, double opacity_reg,
                           double scale_reg, double count) {
    Impl& d = *impl_;
    RADIANT_CHECK(d.batch_grads.means.size() == 3 * d.n, "CUDA step: apply_batch outside a batch");
    RADIANT_CHECK(config.scope == AdamScope::all,
                  "CUDA step: a batch's views see different Gaussians (AdamConfig::scope)");
    RADIANT_CHECK(d.batch_views > 0, "CUDA step: apply_batch before any view's gradients were added");
    d.grads.swap(d.batch_grads);
    if (opacity_reg > 0 || scale_reg > 0)
        launch_mcmc_regularisers(d.params.view(), d.grads.view(), d.n, count, float(opacity_reg),
                                 float(scale_reg), d.sums.data(), d.stream);
    d.adam(lr, config, nullptr);
    d.batch_grads.resize_discard(0, d.sh_degree);  // the next batch begins afresh
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(d.stream));
}

}  // namespace radiant

namespace radiant {

void CudaStep::synchronize() {
    RADIANT_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
}

}  // namespace radiant
