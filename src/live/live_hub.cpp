#include "radiant/live/live_hub.hpp"

#include <nlohmann/json.hpp>

#include "radiant/core/log.hpp"

namespace radiant::live {

std::string status_json(const RunStatus& s) {
    nlohmann::json j;
    j["type"] = "status";
    j["state"] = s.state;
    j["step"] = s.step;
    j["steps"] = s.steps;
    j["loss"] = s.loss;
    j["psnr"] = s.psnr;
    j["seconds"] = s.seconds;
    j["steps_per_second"] = s.steps_per_second;
    j["gaussians"] = s.gaussians;
    return j.dump();
}

int LiveHub::connect() {
    std::lock_guard lock(mutex_);
    const int id = next_client_++;
    connected_[id] = true;
    return id;
}

void LiveHub::disconnect(int client) {
    std::lock_guard lock(mutex_);
    connected_.erase(client);
    pending_.erase(client);
    refused_.erase(client);
}

bool LiveHub::receive(int client, std::string_view text) {
    ClientMessage m;
    try {
        m = parse_client_message(text);
    } catch (const ProtocolError& e) {
        std::size_t n;
        {
            std::lock_guard lock(mutex_);
            n = ++refused_[client];
        }
        if (n == 1 || n % 100 == 0)
            log_warn("viewer: ignored a message from client {} ({}){}", client, e.what(),
                     n > 1 ? fmt::format(", {} so far", n) : std::string());
        return false;
    }
    {
        std::lock_guard lock(mutex_);
        if (!connected_.count(client)) return false;
        if (auto* v = std::get_if<ViewRequest>(&m))
            pending_[client] = *v;
        else
            controls_.push_back(std::get<Control>(m));
    }
    requests_cv_.notify_all();
    return true;
}

std::string LiveHub::hello() const {
    std::lock_guard lock(mutex_);
    return hello_;
}

std::size_t LiveHub::clients() const {
    std::lock_guard lock(mutex_);
    return connected_.size();
}

std::size_t LiveHub::hello_version() const {
    std::lock_guard lock(mutex_);
    return hello_version_;
}

void LiveHub::set_hello(std::string json) {
    std::lock_guard lock(mutex_);
    hello_ = std::move(json);
    ++hello_version_;
}

void LiveHub::set_status(const RunStatus& status) {
    std::lock_guard lock(mutex_);
    status_ = status;
}

std::vector<std::pair<int, ViewRequest>> LiveHub::take_views() {
    std::lock_guard lock(mutex_);
    std::vector<std::pair<int, ViewRequest>> out(pending_.begin(), pending_.end());
    pending_.clear();
    return out;
}

void LiveHub::put_back(int client, ViewRequest view) {
    std::lock_guard lock(mutex_);
    if (connected_.count(client)) pending_.try_emplace(client, std::move(view));
}

std::vector<Control> LiveHub::take_controls() {
    std::lock_guard lock(mutex_);
    return std::exchange(controls_, {});
}

void LiveHub::post_frame(Frame frame) {
    {
        std::lock_guard lock(mutex_);
        frames_.push_back(std::move(frame));
    }
    frames_cv_.notify_all();
}

void LiveHub::wait_for_requests(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    requests_cv_.wait_for(lock, timeout, [&] { return woken_ || !pending_.empty() || !controls_.empty(); });
}

std::vector<Frame> LiveHub::take_frames(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    frames_cv_.wait_for(lock, timeout, [&] { return woken_ || !frames_.empty(); });
    return std::exchange(frames_, {});
}

RunStatus LiveHub::status() const {
    std::lock_guard lock(mutex_);
    return status_;
}

void LiveHub::wake() {
    {
        std::lock_guard lock(mutex_);
        woken_ = true;
    }
    requests_cv_.notify_all();
    frames_cv_.notify_all();
}

RenderBudget::RenderBudget(double fraction, double allowance_seconds)
    : fraction_(fraction), allowance_(allowance_seconds), start_(std::chrono::steady_clock::now()) {}

bool RenderBudget::allows() const {
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    return spent_ <= fraction_ * wall + allowance_;
}

}  // namespace radiant::live
