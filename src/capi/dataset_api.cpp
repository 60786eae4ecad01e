// rd_dataset: a posed-image dataset opened as `radiant train` opens it.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "convert.hpp"
#include "guard.hpp"
#include "handles.hpp"
#include "json_object.hpp"
#include "radiant/core/image.hpp"
#include "radiant/train/demo_dataset.hpp"

using namespace radiant;
using radiant::capi::checked;
using radiant::capi::guarded;

namespace {

DatasetOptions parse_options(const char* text) {
    DatasetOptions o;
    if (!text || !*text) return o;
    const nlohmann::json j = capi::parse_json_object(text, "dataset options");
    try {
        for (const auto& [key, v] : j.items()) {
            if (key == "downscale")
                o.downscale = v.get<int>();
            else if (key == "eval")
                o.eval = v.get<bool>();
            else if (key == "test_every")
                o.test_every = v.get<int>();
            else if (key == "images")
                o.images = v.get<std::string>();
            else if (key == "masks")
                o.masks = v.get<std::string>();
            else if (key == "undistort") {
                const std::string u = v.get<std::string>();
                if (u == "crop")
                    o.undistort = Undistort::crop;
                else if (u == "mask")
                    o.undistort = Undistort::mask;
                else if (u == "none")
                    o.undistort = Undistort::none;
                else
                    throw Error(
                        fmt::format("dataset options: undistort \"{}\" is not crop, mask or none", u));
            } else {
                throw Error(
                    fmt::format("dataset options: unknown key \"{}\" (downscale, eval, test_every, "
                                "undistort, images, masks)",
                                key));
            }
        }
    } catch (const nlohmann::json::exception& e) {
        throw Error(fmt::format("dataset options: a value has the wrong type ({})", e.what()));
    }
    if (o.downscale < 0) throw Error(fmt::format("dataset options: downscale {} is negative", o.downscale));
    if (o.test_every < 1) throw Error(fmt::format("dataset options: test_every {} is below 1", o.test_every));
    return o;
}

const DatasetView& view_of(const rd_dataset* dataset, int64_t i) {
    checked(dataset, "dataset");
    const auto& views = dataset->dataset.views;
    if (i < 0 || i >= int64_t(views.size()))
        throw Error(fmt::format("view {} is outside the dataset's 0–{}", i, int64_t(views.size()) - 1));
    return views[std::size_t(i)];
}

}  // namespace

extern "C" {

rd_status rd_dataset_open(const char* path, const char* options_json, rd_dataset** out) {
    return guarded([&] {
        checked(path, "path");
        checked(out, "out");
        auto d = std::make_unique<rd_dataset>();
        d->dataset = open_dataset(path, parse_options(options_json));
        *out = d.release();
    });
}

void rd_dataset_free(rd_dataset* dataset) {
    delete dataset;
}

int64_t rd_dataset_count(const rd_dataset* dataset) {
    return dataset ? int64_t(dataset->dataset.views.size()) : 0;
}

rd_status rd_dataset_view(const rd_dataset* dataset, int64_t i, const char** name, rd_camera* camera,
                          int32_t* is_test) {
    return guarded([&] {
        const DatasetView& v = view_of(dataset, i);
        if (name) *name = v.name.c_str();
        if (camera) *camera = capi::from_camera(v.camera);
        if (is_test) *is_test = v.test ? 1 : 0;
    });
}

rd_status rd_dataset_image(const rd_dataset* dataset, int64_t i, uint8_t* rgb, uint8_t* mask) {
    return guarded([&] {
        const DatasetView& v = view_of(dataset, i);
        checked(rgb, "rgb");
        Dataset one = dataset->dataset;
        one.views = {v};
        const std::vector<TargetImage> images = load_images(one);
        const TargetImage& im = images.at(0);
        std::copy(im.rgb.data.begin(), im.rgb.data.end(), rgb);
        if (mask) {
            if (im.mask.data.empty())
                std::fill(mask, mask + im.rgb.pixels(), std::uint8_t(255));
            else
                std::copy(im.mask.data.begin(), im.mask.data.end(), mask);
        }
    });
}

rd_status rd_dataset_points(const rd_dataset* dataset, const float** points, int64_t* count) {
    return guarded([&] {
        checked(dataset, "dataset");
        checked(points, "points");
        checked(count, "count");
        static_assert(sizeof(Vec3<float>) == 3 * sizeof(float));
        *points = reinterpret_cast<const float*>(dataset->dataset.points.data());
        *count = int64_t(dataset->dataset.points.size());
    });
}

rd_status rd_write_demo_dataset(const char* dir, int32_t width, int32_t height, int32_t train_views,
                                int32_t test_views) {
    return guarded([&] {
        checked(dir, "dir");
        if (width < 16 || height < 16 || width > 4096 || height > 4096)
            throw Error(fmt::format("rd_write_demo_dataset: {}x{} is outside 16–4096", width, height));
        if (train_views < 1 || test_views < 0)
            throw Error(
                fmt::format("rd_write_demo_dataset: {} train and {} test views", train_views, test_views));
        DemoDatasetOptions o;
        o.width = width;
        o.height = height;
        o.train_views = train_views;
        o.test_views = test_views;
        write_demo_dataset(dir, o);
    });
}

}  // extern "C"
