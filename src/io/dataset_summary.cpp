// `radiant info DATA_DIR`: what was found and what training will do with it, in a few lines however
// many cameras the dataset has.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "radiant/io/dataset.hpp"

namespace radiant {
namespace {

// Parameter names of a camera model's distortion list, in radiant's order.
std::vector<std::string> coefficient_names(const Camera& c) {
    if (c.model == CameraModel::fisheye) return {"k1", "k2", "k3", "k4"};
    return {"k1", "k2", "p1", "p2", "k3", "k4", "k5", "k6"};
}

std::string intrinsics_line(const Camera& c) {
    std::string d = to_string(c.model);
    if (!c.distortion.empty()) {
        d += " (";
        for (std::size_t i = 0; i < c.distortion.size(); ++i)
            d += fmt::format("{}{:.4g}", i ? " " : "", c.distortion[i]);
        d += ")";
    }
    return fmt::format("{}  fx {:.1f} fy {:.1f} cx {:.1f} cy {:.1f}", d, c.fx, c.fy, c.cx, c.cy);
}

struct Range {
    double lo = 1e300, hi = -1e300;
    void add(double v) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    std::string text(const char* fmt_one) const {
        const std::string a = fmt::format(fmt::runtime(fmt_one), lo),
                          b = fmt::format(fmt::runtime(fmt_one), hi);
        return a == b ? a : a + " to " + b;
    }
};

// One line per camera model: how many views, and the range of each intrinsic and coefficient.
std::string camera_ranges(const std::vector<const Camera*>& cams) {
    std::map<CameraModel, std::vector<const Camera*>> by_model;
    for (const Camera* c : cams) by_model[c->model].push_back(c);
    std::string s;
    for (const auto& [model, list] : by_model) {
        Range fx, fy, cx, cy;
        std::vector<Range> k(8);
        std::size_t n_coeffs = 0;
        for (const Camera* c : list) {
            fx.add(c->fx);
            fy.add(c->fy);
            cx.add(c->cx);
            cy.add(c->cy);
            n_coeffs = std::max(n_coeffs, c->distortion.size());
            for (std::size_t i = 0; i < c->distortion.size() && i < 8; ++i) k[i].add(c->distortion[i]);
        }
        s += fmt::format("camera      {} ({} images): fx {}, fy {}, cx {}, cy {}", to_string(model),
                         list.size(), fx.text("{:.1f}"), fy.text("{:.1f}"), cx.text("{:.1f}"),
                         cy.text("{:.1f}"));
        const std::vector<std::string> names = coefficient_names(*list.front());
        for (std::size_t i = 0; i < n_coeffs && i < names.size(); ++i)
            s += fmt::format(", {} {}", names[i], k[i].text("{:.4g}"));
        s += "\n";
    }
    return s;
}

}  // namespace

std::string describe(const Dataset& ds) {
    std::string s = fmt::format("dataset     {}\nformat      {}\n", ds.root, ds.format);
    if (!ds.image_dir.empty()) s += fmt::format("images from {}\n", ds.image_dir);
    s += fmt::format(
        "images      {} ({} train, {} test{})\n", ds.views.size(), ds.train_count(), ds.test_count(),
        ds.options.eval ? fmt::format(", every {}th held out", ds.options.test_every) : ", --eval off");
    std::map<std::string, int> sizes;
    std::map<std::string, int> lines;
    std::vector<const Camera*> cams;
    for (const DatasetView& v : ds.views) {
        sizes[fmt::format("{}x{}", v.source_camera.width, v.source_camera.height)]++;
        lines[intrinsics_line(v.source_camera)]++;
        cams.push_back(&v.source_camera);
    }
    if (sizes.size() <= 4) {
        for (const auto& [size, count] : sizes) s += fmt::format("image size  {} ({} images)\n", size, count);
    } else {
        s += fmt::format("image size  {} different sizes\n", sizes.size());
    }
    if (ds.scale < 1) s += fmt::format("downscale   1/{:.3g} of the stored size\n", 1 / ds.scale);
    // A few distinct cameras are listed; many (one per image) are summarised by their ranges.
    if (lines.size() <= 4) {
        for (const auto& [line, count] : lines) s += fmt::format("camera      {} ({} images)\n", line, count);
    } else {
        s += fmt::format("cameras     {} distinct\n", lines.size());
        s += camera_ranges(cams);
    }
    const std::size_t distorted =
        std::size_t(std::count_if(ds.views.begin(), ds.views.end(), [](const DatasetView& v) {
            return v.source_camera.model != CameraModel::pinhole;
        }));
    if (distorted > 0 && ds.options.undistort == Undistort::mask)
        s += "undistort   to a pinhole with the same intrinsics; pixels the lens did not see are masked "
             "(ewa)\n";
    else if (distorted > 0 && ds.options.undistort == Undistort::crop)
        s += fmt::format(
            "undistort   to a pinhole cropped to the valid rectangle, as OpenCV's alpha = 0 (ewa): {}\n",
            intrinsics_line(ds.views.front().camera));
    else if (distorted > 0)
        s += "undistort   none: each pixel's ray is traced through the lens (ray)\n";
    const std::size_t with_masks = std::size_t(std::count_if(
        ds.views.begin(), ds.views.end(), [](const DatasetView& v) { return !v.mask_path.empty(); }));
    if (with_masks > 0)
        s += fmt::format("masks       {} images{}\n", with_masks,
                         ds.mask_dir.empty() ? " (mask_path)" : fmt::format(" from {}", ds.mask_dir));
    s += fmt::format("alpha       {} (RGBA images)\n",
                     ds.alpha == AlphaUse::mask ? "mask: transparent pixels neither train nor score"
                                                : "composited over the background");
    s += fmt::format("points      {}\n", ds.points.size());
    s += fmt::format("extent      {:.4f} (camera centre {:.3f} {:.3f} {:.3f})\n", ds.extent, ds.centre.x,
                     ds.centre.y, ds.centre.z);
    s += fmt::format("focus       {:.3f} {:.3f} {:.3f} (nearest point to the optical axes)\n", ds.focus.x,
                     ds.focus.y, ds.focus.z);
    for (const std::string& n : ds.notes) s += fmt::format("note        {}\n", n);
    if (!ds.warnings.empty())  // each was logged when the dataset was opened
        s += fmt::format("warnings    {} (see above)\n", ds.warnings.size());
    return s;
}

}  // namespace radiant
