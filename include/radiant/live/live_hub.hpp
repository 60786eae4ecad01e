#pragma once
// What the live viewer's server threads and the render loop (the trainer's thread, between steps) share.
// Clients send view requests and controls; the render loop takes them when it can, renders, and posts
// frames; the server's sender thread encodes and sends them. Each client has at most one view pending (a
// newer one replaces it) and the page asks for the next frame only after the last one arrived, so a slow
// client gets fewer frames and never holds up the loop.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "radiant/core/image.hpp"
#include "radiant/live/protocol.hpp"

namespace radiant::live {

struct Frame {
    int client = 0;
    std::uint32_t id = 0, step = 0, render_us = 0;
    int quality = 80;
    Image<std::uint8_t> image;  // RGB
};

// What the page's panel shows.
struct RunStatus {
    std::string state = "starting";  // starting, training, paused, finished, scene
    long step = 0, steps = 0;
    double loss = 0, psnr = 0, seconds = 0, steps_per_second = 0;
    std::size_t gaussians = 0;
};
std::string status_json(const RunStatus& status);

class LiveHub {
  public:
    // Server threads.
    int connect();
    void disconnect(int client);
    // A text message from a client. A refused one is logged (the first of a client's, then every 100th) and
    // dropped; returns whether it was taken.
    bool receive(int client, std::string_view text);
    std::string hello() const;
    // Changes each time set_hello is called: the sender sends the new hello to every client.
    std::size_t hello_version() const;
    std::size_t clients() const;

    // The render loop.
    void set_hello(std::string json);
    void set_status(const RunStatus& status);
    std::vector<std::pair<int, ViewRequest>> take_views();
    // A view the loop could not render yet goes back, unless the client has sent a newer one meanwhile.
    void put_back(int client, ViewRequest view);
    std::vector<Control> take_controls();
    void post_frame(Frame frame);
    // Waits until a view or a control arrives, or `timeout`.
    void wait_for_requests(std::chrono::milliseconds timeout);

    // The sender thread: the frames posted, after waiting up to `timeout` for one.
    std::vector<Frame> take_frames(std::chrono::milliseconds timeout);
    RunStatus status() const;
    // Wakes every waiter (shutting down).
    void wake();

  private:
    mutable std::mutex mutex_;
    std::condition_variable requests_cv_, frames_cv_;
    int next_client_ = 1;
    std::map<int, ViewRequest> pending_;
    std::map<int, std::size_t> refused_;  // per client
    std::map<int, bool> connected_;
    std::vector<Control> controls_;
    std::vector<Frame> frames_;
    RunStatus status_;
    std::string hello_ = R"({"type":"hello"})";
    std::size_t hello_version_ = 0;
    bool woken_ = false;
};

// Renders may take `fraction` of the wall time since the start (plus a small allowance), so a viewer never
// slows training by more than that; nothing is spent while no client asks.
class RenderBudget {
  public:
    explicit RenderBudget(double fraction, double allowance_seconds = 0.25);
    bool allows() const;
    void spend(double seconds) { spent_ += seconds; }

  private:
    double fraction_, allowance_, spent_ = 0;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace radiant::live
