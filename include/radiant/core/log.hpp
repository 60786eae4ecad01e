#pragma once
// Logging (STYLE.md "Logging"): one process-wide sink that the app may replace and a level filter.
// Log per load, per densification, never per step.
#include <fmt/format.h>

#include <functional>
#include <string_view>
#include <utility>

namespace radiant {

enum class LogLevel { error = 0, warn = 1, info = 2, debug = 3 };

using LogSink = std::function<void(LogLevel, std::string_view)>;

void set_log_level(LogLevel level);
bool log_enabled(LogLevel level);
// Replaces the sink (default: stderr, "warning: " / "error: " prefixes). Pass nullptr for the default.
void set_log_sink(LogSink sink);
void log_message(LogLevel level, std::string_view message);
// Parses "error", "warn", "info" or "debug"; throws Error otherwise.
LogLevel parse_log_level(std::string_view name);

template <class... A>
void log_error(fmt::format_string<A...> f, A&&... a) {
    if (log_enabled(LogLevel::error)) log_message(LogLevel::error, fmt::format(f, std::forward<A>(a)...));
}
template <class... A>
void log_warn(fmt::format_string<A...> f, A&&... a) {
    if (log_enabled(LogLevel::warn)) log_message(LogLevel::warn, fmt::format(f, std::forward<A>(a)...));
}
template <class... A>
void log_info(fmt::format_string<A...> f, A&&... a) {
    if (log_enabled(LogLevel::info)) log_message(LogLevel::info, fmt::format(f, std::forward<A>(a)...));
}
template <class... A>
void log_debug(fmt::format_string<A...> f, A&&... a) {
    if (log_enabled(LogLevel::debug)) log_message(LogLevel::debug, fmt::format(f, std::forward<A>(a)...));
}

}  // namespace radiant
