// Decoding a dataset's images: each photo read, its alpha and mask file turned into one mask, both
// resized to the loaded size and undistorted through one remap table per lens.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <exception>
#include <future>
#include <map>
#include <mutex>

#include "radiant/core/error.hpp"
#include "radiant/core/progress.hpp"
#include "radiant/core/system_memory.hpp"
#include "radiant/io/dataset.hpp"
#include "radiant/io/image_io.hpp"
#include "radiant/io/masks.hpp"
#include "radiant/io/undistort.hpp"

namespace radiant {
namespace {

bool undistorts(const Dataset& ds, const DatasetView& v) {
    return ds.options.undistort != Undistort::none && v.source_camera.model != CameraModel::pinhole;
}

// The decoded set (8-bit RGB at the loaded size, plus a byte a pixel for views that may carry a mask)
// and what decoding holds at once: one source-size RGBA image, its mask and resized copies per thread.
std::size_t image_set_bytes(const Dataset& ds, int extra_downscale) {
    std::size_t kept = 0, largest_source = 0;
    for (const DatasetView& v : ds.views) {
        const std::size_t pixels =
            std::size_t(v.camera.width / extra_downscale) * std::size_t(v.camera.height / extra_downscale);
        const bool may_mask = undistorts(ds, v) || !v.mask_path.empty() || ds.alpha == AlphaUse::mask;
        kept += pixels * (may_mask ? 4 : 3);
        largest_source = std::max(largest_source, std::size_t(v.source_width) * std::size_t(v.source_height));
    }
    return kept + largest_source * 9 * std::size_t(omp_get_max_threads());
}

// Undistortion tables, one per distinct (lens, output camera), built by the first view that needs one and
// freed when the last view using it is done, so per-image cameras never hold every table at once.
class UndistortMaps {
  public:
    explicit UndistortMaps(const Dataset& ds) {
        for (const DatasetView& v : ds.views)
            if (undistorts(ds, v)) ++uses_[key(v)];
    }
    // Build or wait for the table of v's lens; release() when done with it.
    std::shared_ptr<const UndistortMap> acquire(const DatasetView& v) {
        std::shared_future<std::shared_ptr<const UndistortMap>> f;
        std::promise<std::shared_ptr<const UndistortMap>> build;
        bool builder = false;
        {
            std::lock_guard lock(mutex_);
            auto it = maps_.find(key(v));
            if (it == maps_.end()) {
                it = maps_.emplace(key(v), build.get_future().share()).first;
                builder = true;
            }
            f = it->second;
        }
        if (builder) {
            try {
                build.set_value(
                    std::make_shared<const UndistortMap>(make_undistort_map(v.source_camera, v.camera)));
            } catch (...) {
                build.set_exception(std::current_exception());
            }
        }
        return f.get();
    }
    void release(const DatasetView& v) {
        std::lock_guard lock(mutex_);
        if (--uses_[key(v)] == 0) maps_.erase(key(v));
    }

  private:
    // The lens and the pinhole it is undistorted to.
    static std::vector<double> key(const DatasetView& v) {
        std::vector<double> k = lens_key(v.source_camera);
        const std::vector<double> out = lens_key(v.camera);
        k.insert(k.end(), out.begin(), out.end());
        return k;
    }
    std::mutex mutex_;
    std::map<std::vector<double>, std::size_t> uses_;
    std::map<std::vector<double>, std::shared_future<std::shared_ptr<const UndistortMap>>> maps_;
};

Image<std::uint8_t> without_alpha(const Image<std::uint8_t>& in) {
    if (in.channels != 2 && in.channels != 4) return in;
    Image<std::uint8_t> out(in.width, in.height, in.channels - 1);
    for (std::size_t p = 0; p < in.pixels(); ++p)
        for (int c = 0; c < out.channels; ++c)
            out.data[p * std::size_t(out.channels) + std::size_t(c)] =
                in.data[p * std::size_t(in.channels) + std::size_t(c)];
    return out;
}

TargetImage load_view(const Dataset& ds, const DatasetView& v, UndistortMaps& maps) {
    Image<std::uint8_t> img = read_image(v.image_path);
    if (img.width != v.source_width || img.height != v.source_height)
        throw IoError(v.image_path, "image size changed since the dataset was opened");
    TargetImage t;
    if (!v.mask_path.empty()) {
        t.mask = read_mask(v.mask_path);
        if (t.mask.width != img.width || t.mask.height != img.height)
            throw IoError(v.mask_path, fmt::format("is {}x{}, but its image {} is {}x{}", t.mask.width,
                                                   t.mask.height, v.image_path, img.width, img.height));
    }
    if (ds.alpha == AlphaUse::mask) {
        t.mask = intersect_masks(t.mask, mask_from_alpha(img));
        img = without_alpha(img);
    }
    const double bg[3] = {ds.options.background[0], ds.options.background[1], ds.options.background[2]};
    t.rgb = to_rgb(img, bg);
    const Camera& c = v.source_camera;
    if (t.rgb.width != c.width || t.rgb.height != c.height) {
        t.rgb = resize_area(t.rgb, c.width, c.height);
        t.mask = resize_mask(t.mask, c.width, c.height);
    }
    if (undistorts(ds, v)) {
        const std::shared_ptr<const UndistortMap> map = maps.acquire(v);
        t.rgb = undistort_image(*map, t.rgb, ds.options.resample);
        t.mask = undistort_mask(*map, t.mask, ds.options.resample);
        maps.release(v);
    }
    if (!excludes_any(t.mask)) {
        t.mask = {};
    } else if (t.valid_pixels() == 0) {
        throw IoError(v.mask_path.empty() ? v.image_path : v.mask_path,
                      "excludes every pixel of the image: nothing to train on");
    }
    return t;
}

}  // namespace

std::vector<TargetImage> load_images(const Dataset& ds, std::size_t memory_limit,
                                     const std::function<bool()>& cancelled) {
    if (memory_limit == 0) memory_limit = available_host_memory();
    if (const std::size_t need = image_set_bytes(ds, 1); memory_limit > 0 && need > memory_limit) {
        int k = 2;
        while (k < 16 && image_set_bytes(ds, k) > memory_limit) k *= 2;
        throw OutOfMemory(fmt::format(
            "{}: the {} images need {} in memory at {}x{} (8-bit RGB and masks, while decoding), more than "
            "the {} available; train with --downscale {} ({} needed)",
            ds.root, ds.views.size(), format_bytes(need), ds.views.front().camera.width,
            ds.views.front().camera.height, format_bytes(memory_limit), std::max(ds.options.downscale, 1) * k,
            format_bytes(image_set_bytes(ds, k))));
    }
    std::vector<TargetImage> images(ds.views.size());
    UndistortMaps maps(ds);
    ProgressLine progress("loading images", ds.views.size());
    std::exception_ptr first_error;  // rethrown as it is: it names the file, which names the dataset
    std::mutex error_mutex;
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t i = 0; i < std::int64_t(ds.views.size()); ++i) {
        if (cancelled && cancelled()) continue;
        try {
            images[std::size_t(i)] = load_view(ds, ds.views[std::size_t(i)], maps);
        } catch (...) {
            std::lock_guard lock(error_mutex);
            if (!first_error) first_error = std::current_exception();
        }
        progress.tick();
    }
    progress.done();
    if (cancelled && cancelled()) throw Interrupted("interrupted while loading images");
    if (first_error) std::rethrow_exception(first_error);
    return images;
}

}  // namespace radiant
