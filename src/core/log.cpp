#include "radiant/core/log.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>

#include "radiant/core/error.hpp"

namespace radiant {
namespace {

// The one process-wide logging state (STYLE.md): the level and the sink, guarded for worker threads.
struct LogState {
    std::atomic<int> level{int(LogLevel::info)};
    std::mutex mutex;
    LogSink sink;
};

LogState& state() {
    static LogState s;
    return s;
}

void default_sink(LogLevel level, std::string_view message) {
    const char* prefix = level == LogLevel::error ? "error: " : level == LogLevel::warn ? "warning: " : "";
    std::fprintf(stderr, "%s%.*s\n", prefix, int(message.size()), message.data());
}

}  // namespace

void set_log_level(LogLevel level) {
    state().level = int(level);
}
bool log_enabled(LogLevel level) {
    return int(level) <= state().level.load(std::memory_order_relaxed);
}

void set_log_sink(LogSink sink) {
    std::lock_guard lock(state().mutex);
    state().sink = std::move(sink);
}

void log_message(LogLevel level, std::string_view message) {
    std::lock_guard lock(state().mutex);
    if (state().sink)
        state().sink(level, message);
    else
        default_sink(level, message);
}

LogLevel parse_log_level(std::string_view name) {
    if (name == "error") return LogLevel::error;
    if (name == "warn" || name == "warning") return LogLevel::warn;
    if (name == "info") return LogLevel::info;
    if (name == "debug") return LogLevel::debug;
    throw Error(fmt::format("unknown log level '{}' (expected error, warn, info or debug)", name));
}

}  // namespace radiant
