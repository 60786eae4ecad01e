#pragma once
// What a run leaves for people to look at: side-by-side renders and a self-contained HTML report.
#include <string>
#include <vector>

#include "radiant/core/image.hpp"
#include "radiant/train/checkpoint.hpp"
#include "radiant/train/run_profile.hpp"

namespace radiant {

struct ViewMetrics {
    std::string name;
    double psnr = 0, ssim = 0;
};

// ground truth | render | error heat-map (mean absolute error, 0 → black, ≥ 0.25 → white-hot). Pixels a
// mask excludes (they neither train nor score) are drawn as a blue-gray checkerboard in the ground truth
// and the heat-map.
Image<std::uint8_t> comparison_image(const Image<float>& truth, const Image<float>& render,
                                     const Image<std::uint8_t>* mask = nullptr);

struct ReportData {
    std::string title;
    std::vector<std::pair<std::string, std::string>> summary;  // label, value
    std::vector<HistoryPoint> history;
    std::vector<EvalPoint> evals;
    std::vector<ViewMetrics> views;
    std::vector<std::string> thumbnails;    // PNG bytes, one per view (same order)
    std::vector<StageShare> profile;        // --profile: mean ms of each stage of a step
    std::vector<std::string> profile_note;  // and its lines (densification, evaluation)
};

// One HTML file with inline SVG charts and base64 images: no network, no neighbours needed.
std::string report_html(const ReportData& data);

std::string base64(std::string_view bytes);

}  // namespace radiant
