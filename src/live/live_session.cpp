#include "radiant/live/live_session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "radiant/core/capture_frame.hpp"
#include "radiant/core/colour_map.hpp"
#include "radiant/core/log.hpp"
#include "radiant/io/camera_json.hpp"
#include "radiant/io/image_io.hpp"
#include "radiant/live/live_server.hpp"

namespace radiant::live {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

Image<std::uint8_t> picture(const RenderLayers& r, Layer layer) {
    if (layer == Layer::depth) return depth_picture(r.depth, r.alpha);
    if (layer == Layer::rgb) return to_u8(r.rgb);
    Image<std::uint8_t> out(r.alpha.width, r.alpha.height, 3);
    const Image<std::uint8_t> a = to_u8(r.alpha);
    for (std::size_t i = 0; i < a.data.size(); ++i)
        out.data[3 * i] = out.data[3 * i + 1] = out.data[3 * i + 2] = a.data[i];
    return out;
}

void announce(const LiveServer& server, const std::string& host) {
    std::fprintf(stderr,
                 "viewer: %s  (on a remote machine: ssh -L %d:127.0.0.1:%d HOST, then open it here)\n",
                 server.url().c_str(), server.port(), server.port());
    if (host != "127.0.0.1" && host != "localhost")
        log_warn("viewer: listening on {}: anyone who can reach this machine can watch and pause the run",
                 host);
}

}  // namespace

std::string hello_json(const std::string& mode, const std::string& title, const std::vector<Camera>& cameras,
                       long steps) {
    nlohmann::json j;
    j["type"] = "hello";
    j["mode"] = mode;
    j["title"] = title;
    j["steps"] = steps;
    // The camera JSON format (R as rows), as every other radiant file holds cameras.
    j["cameras"] = nlohmann::json::parse(format_cameras_json(cameras))["cameras"];
    if (!cameras.empty()) {
        const CaptureFrame f = capture_frame(cameras);
        j["focus"] = {f.focus.x, f.focus.y, f.focus.z};
        j["up"] = {f.up.x, f.up.y, f.up.z};
        j["radius"] = f.radius;
    }
    return j.dump();
}

void render_requests(LiveHub& hub, Backend& backend, const RenderSettings& settings, RenderBudget* budget,
                     long step) {
    for (auto& [client, view] : hub.take_views()) {
        if (budget && !budget->allows()) {
            hub.put_back(client, std::move(view));
            continue;
        }
        const auto t0 = Clock::now();
        const RenderLayers r = backend.render_layers(view.camera, settings, view.layer == Layer::depth);
        Frame f;
        f.client = client;
        f.id = view.id;
        f.step = std::uint32_t(std::max(0L, step));
        f.quality = view.quality;
        f.image = picture(r, view.layer);
        const double took = seconds_since(t0);
        f.render_us = std::uint32_t(std::min(took * 1e6, 4e9));
        hub.post_frame(std::move(f));
        if (budget) budget->spend(took);
    }
}

LiveTraining::LiveTraining(const LiveOptions& options)
    : server_(std::make_unique<LiveServer>(hub_, options.host, options.port)),
      fraction_(options.budget),
      budget_(options.budget) {
    hub_.set_hello(hello_json("train", "", {}, 0));
    announce(*server_, options.host);
}

LiveTraining::~LiveTraining() = default;

std::string LiveTraining::url() const {
    return server_->url();
}

TrainHooks LiveTraining::hooks() {
    TrainHooks h;
    h.on_dataset = [this](const Dataset& ds, const RenderSettings& settings) {
        hub_.set_hello(hello_json("train", dataset_title(ds.root), ds.named_cameras(), 0));
        settings_ = settings;
        budget_ = RenderBudget(fraction_);  // loading the images is not time renders may take
    };
    h.between_steps = [this](const StepReport& r, Backend& b) { return between(r, b); };
    return h;
}

BetweenSteps LiveTraining::between(const StepReport& report, Backend& backend) {
    status_.state = "training";
    status_.step = report.step;
    status_.steps = report.steps;
    status_.loss = report.loss;
    status_.psnr = report.psnr;
    status_.gaussians = report.gaussians;
    status_.seconds = report.seconds;
    status_.steps_per_second = report.steps_per_second;
    BetweenSteps out;
    auto apply_controls = [&] {
        for (Control c : hub_.take_controls()) {
            if (c == Control::pause) paused_ = true;
            if (c == Control::resume) paused_ = false;
            if (c == Control::checkpoint) out.request = RunRequest::checkpoint;
            if (c == Control::stop) out.request = RunRequest::stop;
        }
    };
    apply_controls();
    if (!paused_) {
        hub_.set_status(status_);
        render_requests(hub_, backend, settings_, &budget_, report.step);
        return out;
    }
    // Paused: the run is held here, renders need no budget, and a checkpoint or stop returns at once.
    const auto t0 = Clock::now();
    status_.state = "paused";
    hub_.set_status(status_);
    while (paused_ && out.request == RunRequest::none && !interrupt_requested()) {
        hub_.wait_for_requests(std::chrono::milliseconds(100));
        apply_controls();
        render_requests(hub_, backend, settings_, nullptr, report.step);
    }
    status_.state = paused_ ? "paused" : "training";
    hub_.set_status(status_);
    out.held_seconds = seconds_since(t0);
    return out;
}

void LiveTraining::finished(const std::string& how) {
    status_.state = how;
    hub_.set_status(status_);
}

void serve_scene(Backend& backend, const std::vector<Camera>& cameras, const RenderSettings& settings,
                 const std::string& title, const LiveOptions& options,
                 const std::function<bool()>& keep_running) {
    LiveHub hub;
    hub.set_hello(hello_json("view", title, cameras, 0));
    RunStatus s;
    s.state = "scene";
    s.gaussians = backend.size();
    hub.set_status(s);
    LiveServer server(hub, options.host, options.port);
    announce(server, options.host);
    std::fprintf(stderr, "viewer: serving %s (%zu Gaussians on the %s backend); Ctrl-C ends it\n",
                 title.c_str(), backend.size(), backend.name().c_str());
    while (keep_running()) {
        hub.wait_for_requests(std::chrono::milliseconds(200));
        hub.take_controls();  // a saved scene has no run to pause
        render_requests(hub, backend, settings, nullptr, 0);
    }
}

}  // namespace radiant::live
