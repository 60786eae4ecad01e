#pragma once
// One live progress line on a terminal ("\r" updates), or a few plain log lines when stderr is not a TTY.
// Thread-safe tick(): workers may report.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace radiant {

class ProgressLine {
  public:
    ProgressLine(std::string label, std::size_t total);
    ~ProgressLine();
    void tick(std::size_t n = 1);
    void done();

  private:
    void print(std::size_t count, bool final);
    std::string label_;
    std::size_t total_;
    std::atomic<std::size_t> count_{0};
    std::size_t last_decile_ = 0;
    bool tty_;
    bool finished_ = false;
    std::mutex mutex_;
    std::chrono::steady_clock::time_point start_, last_print_;
};

}  // namespace radiant
