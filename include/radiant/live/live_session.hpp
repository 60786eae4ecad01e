#pragma once
// Watching a run or a scene live (issue 21): `radiant train --viewer` and `radiant view SCENE --serve`.
// The render loop runs on the caller's thread — between training steps, under a time budget — so the GPU
// (or CPU) that trains also renders, and training never waits on a browser.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "radiant/core/camera.hpp"
#include "radiant/live/live_hub.hpp"
#include "radiant/train/backend.hpp"
#include "radiant/train/trainer.hpp"

namespace radiant::live {

class LiveServer;

struct LiveOptions {
    std::string host = "127.0.0.1";
    int port = 8080;
    double budget = 0.1;  // the share of wall time renders may take while training
};

// "hello": the page's starting point — the capture's cameras (its first is the first view), the point
// they look at and their up, the run's length.
std::string hello_json(const std::string& mode, const std::string& title, const std::vector<Camera>& cameras,
                       long steps);

// Renders the views clients asked for on `backend` and posts the frames; with a budget, only while it
// allows (the rest wait for the next call). `step` labels the frames.
void render_requests(LiveHub& hub, Backend& backend, const RenderSettings& settings, RenderBudget* budget,
                     long step);

class LiveTraining {
  public:
    // Starts the server and prints where to open it.
    explicit LiveTraining(const LiveOptions& options);
    ~LiveTraining();
    // Hooks for train(): the cameras when the dataset opens; status, controls and renders between steps.
    TrainHooks hooks();
    // The run ended: the page says so.
    void finished(const std::string& how);
    std::string url() const;

  private:
    BetweenSteps between(const StepReport& report, Backend& backend);

    LiveHub hub_;
    std::unique_ptr<LiveServer> server_;
    double fraction_;
    RenderBudget budget_;
    RenderSettings settings_;
    RunStatus status_;
    bool paused_ = false;
};

// Serves the page for a scene held by `backend` until `keep_running` returns false (asked a few times a
// second).
void serve_scene(Backend& backend, const std::vector<Camera>& cameras, const RenderSettings& settings,
                 const std::string& title, const LiveOptions& options,
                 const std::function<bool()>& keep_running);

}  // namespace radiant::live
