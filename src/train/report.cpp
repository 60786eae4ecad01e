#include "radiant/train/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace radiant {

Image<std::uint8_t> comparison_image(const Image<float>& truth, const Image<float>& render,
                                     const Image<std::uint8_t>* mask) {
    const int w = truth.width, h = truth.height;
    Image<std::uint8_t> out(3 * w, h, 3);
    auto q = [](double v) { return std::uint8_t(std::lround(std::clamp(v, 0.0, 1.0) * 255)); };
    const bool masked = mask && !mask->data.empty();
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if (masked && mask->at(x, y) != kMaskValid) {
                const std::uint8_t v = ((x / 8 + y / 8) % 2) ? 70 : 110;
                const std::uint8_t cell[3] = {v, v, std::uint8_t(v + 40)};
                for (int c = 0; c < 3; ++c) {
                    out.at(x, y, c) = out.at(2 * w + x, y, c) = cell[c];
                    out.at(w + x, y, c) = q(render.at(x, y, c));
                }
                continue;
            }
            double err = 0;
            for (int c = 0; c < 3; ++c) {
                out.at(x, y, c) = q(truth.at(x, y, c));
                out.at(w + x, y, c) = q(render.at(x, y, c));
                err += std::abs(double(truth.at(x, y, c)) - double(render.at(x, y, c)));
            }
            // black → red → yellow → white as the error grows to 0.25
            const double t = std::clamp(err / 3 / 0.25, 0.0, 1.0);
            out.at(2 * w + x, y, 0) = q(3 * t);
            out.at(2 * w + x, y, 1) = q(3 * t - 1);
            out.at(2 * w + x, y, 2) = q(3 * t - 2);
        }
    return out;
}

std::string base64(std::string_view in) {
    static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        const unsigned v = unsigned(std::uint8_t(in[i])) << 16 | unsigned(std::uint8_t(in[i + 1])) << 8 |
                           unsigned(std::uint8_t(in[i + 2]));
        out += t[v >> 18];
        out += t[(v >> 12) & 63];
        out += t[(v >> 6) & 63];
        out += t[v & 63];
    }
    if (i < in.size()) {
        unsigned v = unsigned(std::uint8_t(in[i])) << 16;
        if (i + 1 < in.size()) v |= unsigned(std::uint8_t(in[i + 1])) << 8;
        out += t[v >> 18];
        out += t[(v >> 12) & 63];
        out += i + 1 < in.size() ? t[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

namespace {

std::string escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '<')
            o += "&lt;";
        else if (c == '>')
            o += "&gt;";
        else if (c == '&')
            o += "&amp;";
        else
            o += c;
    }
    return o;
}

// A line chart of (x, y) points as inline SVG; log_y for the loss.
std::string chart(const std::string& title, const std::vector<std::pair<double, double>>& pts, bool log_y,
                  const char* colour) {
    const double W = 460, H = 220, L = 52, R = 12, T = 28, B = 30;
    std::string svg = fmt::format(
        R"(<svg viewBox="0 0 {} {}" width="{}" height="{}"><text x="{}" y="18" class="t">{}</text>)", W, H, W,
        H, L, escape(title));
    if (pts.empty()) return svg + R"(<text x="60" y="110">no data</text></svg>)";
    auto fy = [&](double v) { return log_y ? std::log10(std::max(v, 1e-12)) : v; };
    double x0 = pts.front().first, x1 = pts.back().first, y0 = INFINITY, y1 = -INFINITY;
    for (auto [x, y] : pts) {
        y0 = std::min(y0, fy(y));
        y1 = std::max(y1, fy(y));
    }
    const bool one_x = x1 <= x0;
    if (one_x) x0 -= 1, x1 += 1;  // a single step: centred
    // A flat series sits mid-chart between labels that differ: pad by 5 % of its value (or 1 near zero).
    if (y1 - y0 < 1e-9 * std::max(1.0, std::abs(y0))) {
        const double pad = std::abs(y0) > 1e-9 ? 0.05 * std::abs(y0) : 1.0;
        y0 -= pad;
        y1 += pad;
    }
    auto px = [&](double x) { return L + (x - x0) / (x1 - x0) * (W - L - R); };
    auto py = [&](double y) { return T + (1 - (fy(y) - y0) / (y1 - y0)) * (H - T - B); };
    svg +=
        fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" class="f"/>)", L, T, W - L - R, H - T - B);
    for (int i = 0; i <= 4; ++i) {
        const double yv = y0 + (y1 - y0) * i / 4;
        const double shown = log_y ? std::pow(10, yv) : yv;
        svg += fmt::format(R"(<text x="{}" y="{}" class="a" text-anchor="end">{:.3g}</text>)", L - 4,
                           T + (1 - double(i) / 4) * (H - T - B) + 4, shown);
    }
    if (one_x)
        svg += fmt::format(R"(<text x="{}" y="{}" class="a" text-anchor="middle">step {:.0f}</text>)",
                           px(x0 + 1), H - 10, x0 + 1);
    else
        svg += fmt::format(
            R"(<text x="{}" y="{}" class="a">{:.0f}</text><text x="{}" y="{}" class="a" text-anchor="end">{:.0f}</text>)",
            L, H - 10, x0, W - R, H - 10, x1);
    std::string line;
    for (auto [x, y] : pts) line += fmt::format("{:.1f},{:.1f} ", px(x), py(y));
    svg += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="1.6"/>)", line, colour);
    if (pts.size() < 40)
        for (auto [x, y] : pts)
            svg +=
                fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="2.5" fill="{}"/>)", px(x), py(y), colour);
    return svg + "</svg>";
}

// --profile: one bar per stage of a step, its mean milliseconds and share, then the other lines.
std::string profile_section(const std::vector<StageShare>& stages, const std::vector<std::string>& note) {
    double total = 0, most = 0;
    for (const StageShare& s : stages) total += s.ms, most = std::max(most, s.ms);
    const int row = 20, W = 560, L = 80, bar = 330;
    const int H = row * int(stages.size()) + 34;
    std::string svg = fmt::format(
        R"(<svg viewBox="0 0 {} {}" width="{}" height="{}"><text x="8" y="18" class="t">a training step: {:.3f} ms (mean of the timed steps)</text>)",
        W, H, W, H, total);
    for (std::size_t i = 0; i < stages.size(); ++i) {
        const int y = 28 + row * int(i);
        const double w = most > 0 ? bar * stages[i].ms / most : 0;
        svg += fmt::format(R"(<text x="{}" y="{}" class="a" text-anchor="end">{}</text>)", L - 6, y + 12,
                           escape(stages[i].stage));
        svg += fmt::format(R"(<rect x="{}" y="{}" width="{:.1f}" height="14" fill="#2471a3"/>)", L, y, w);
        svg += fmt::format(R"(<text x="{:.1f}" y="{}" class="a">{:.3f} ms, {:.1f} %</text>)", L + w + 6,
                           y + 12, stages[i].ms, total > 0 ? 100 * stages[i].ms / total : 0);
    }
    std::string h = "<h2>Where the time goes (--profile)</h2>" + svg + "</svg><pre>";
    for (const std::string& line : note) h += escape(line) + "\n";
    return h + "</pre>";
}

}  // namespace

std::string report_html(const ReportData& d) {
    std::string h = R"(<!doctype html><html><head><meta charset="utf-8"><title>)" + escape(d.title) +
                    R"(</title><style>
body{font-family:system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}
h1{font-size:22px} h2{font-size:17px;margin-top:28px}
table{border-collapse:collapse} td,th{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left}
.charts{display:flex;flex-wrap:wrap;gap:12px} svg{background:#fff;border:1px solid #ddd}
.t{font-size:13px;font-weight:600} .a{font-size:10px;fill:#555} .f{fill:none;stroke:#ccc}
.grid{display:flex;flex-wrap:wrap;gap:14px} figure{margin:0} figcaption{font-size:12px;color:#444}
img{border:1px solid #ccc;max-width:100%}
</style></head><body>)";
    h += "<h1>" + escape(d.title) + "</h1><table>";
    for (const auto& [k, v] : d.summary) h += "<tr><th>" + escape(k) + "</th><td>" + escape(v) + "</td></tr>";
    h += "</table><h2>Training</h2><div class=\"charts\">";
    std::vector<std::pair<double, double>> loss, train_psnr, count, eval_psnr, eval_ssim;
    for (const auto& p : d.history) {
        loss.push_back({double(p.step), p.loss});
        train_psnr.push_back({double(p.step), p.psnr});
        count.push_back({double(p.step), double(p.gaussians)});
    }
    for (const auto& e : d.evals) {
        eval_psnr.push_back({double(e.step), e.psnr});
        eval_ssim.push_back({double(e.step), e.ssim});
    }
    h += chart("loss (training views)", loss, true, "#c0392b");
    h += chart("PSNR dB (training views)", train_psnr, false, "#2471a3");
    h += chart("Gaussians", count, false, "#1e8449");
    h += chart("test PSNR dB", eval_psnr, false, "#7d3c98");
    h += chart("test SSIM", eval_ssim, false, "#b9770e");
    h += "</div>";
    if (!d.profile.empty()) h += profile_section(d.profile, d.profile_note);
    h += "<h2>Test views: ground truth | render | error</h2>";
    // The error map's colour scale (comparison_image): mean absolute error 0 → 0.25 and above.
    h +=
        R"svg(<svg viewBox="0 0 350 34" width="350" height="34"><defs><linearGradient id="err">)svg"
        R"svg(<stop offset="0" stop-color="#000"/><stop offset="0.333" stop-color="#f00"/>)svg"
        R"svg(<stop offset="0.667" stop-color="#ff0"/><stop offset="1" stop-color="#fff"/></linearGradient></defs>)svg"
        R"svg(<rect x="70" y="4" width="200" height="12" fill="url(#err)" stroke="#999"/>)svg"
        R"svg(<text x="0" y="14" class="a">error</text><text x="70" y="30" class="a">0</text>)svg"
        R"svg(<text x="270" y="30" class="a" text-anchor="end">0.25+ (mean abs, 0-1)</text>)svg"
        R"svg(<rect x="285" y="4" width="12" height="12" fill="#5a5a82"/><text x="300" y="14" class="a">masked</text></svg>)svg";
    h += "<div class=\"grid\">";
    for (std::size_t i = 0; i < d.views.size(); ++i) {
        h += "<figure>";
        if (i < d.thumbnails.size())
            h += R"(<img src="data:image/png;base64,)" + base64(d.thumbnails[i]) + R"(">)";
        h += fmt::format("<figcaption>{} — PSNR {:.2f} dB, SSIM {:.4f}</figcaption></figure>",
                         escape(d.views[i].name), d.views[i].psnr, d.views[i].ssim);
    }
    h += "</div></body></html>\n";
    return h;
}

}  // namespace radiant
