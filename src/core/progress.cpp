#include "radiant/core/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "radiant/core/log.hpp"

namespace radiant {

ProgressLine::ProgressLine(std::string label, std::size_t total)
    : label_(std::move(label)),
      total_(total),
      tty_(::isatty(2) == 1),
      start_(std::chrono::steady_clock::now()) {
    last_print_ = start_;
}

ProgressLine::~ProgressLine() {
    done();
}

void ProgressLine::tick(std::size_t n) {
    const std::size_t c = count_ += n;
    std::lock_guard lock(mutex_);
    if (!finished_) print(c, false);
}

void ProgressLine::done() {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    print(count_, true);
}

void ProgressLine::print(std::size_t count, bool final) {
    if (!log_enabled(LogLevel::info)) return;
    const auto now = std::chrono::steady_clock::now();
    const double secs = std::chrono::duration<double>(now - start_).count();
    const std::string line = fmt::format("{}: {}/{} ({:.1f} s)", label_, count, total_, secs);
    if (tty_) {
        if (!final && now - last_print_ < std::chrono::milliseconds(100)) return;
        last_print_ = now;
        std::fprintf(stderr, "\r%s%s", line.c_str(), final ? "\n" : "");
        std::fflush(stderr);
        return;
    }
    const std::size_t decile = total_ ? count * 10 / total_ : 10;
    if (final || decile > last_decile_) {
        last_decile_ = decile;
        if (final || decile < 10) log_info("{}", line);
    }
}

}  // namespace radiant
