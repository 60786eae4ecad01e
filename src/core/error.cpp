#include "radiant/core/error.hpp"

#include <fmt/format.h>

namespace radiant {

IoError::IoError(std::string path, const std::string& reason)
    : Error(fmt::format("{}: {}", path, reason)), path_(std::move(path)) {}

std::string format_bytes(std::size_t bytes) {
    const double b = double(bytes);
    if (b >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GiB", b / (1024.0 * 1024 * 1024));
    if (b >= 1024.0 * 1024) return fmt::format("{:.1f} MiB", b / (1024.0 * 1024));
    if (b >= 1024.0) return fmt::format("{:.1f} KiB", b / 1024.0);
    return fmt::format("{} B", bytes);
}

void throw_check_failed(const char* file, int line, const std::string& message) {
    throw Error(fmt::format("{} (at {}:{})", message, file, line));
}

}  // namespace radiant
