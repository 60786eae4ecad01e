#include "radiant/core/error.hpp"

#include <fmt/format.h>

namespace radiant {

IoError::IoError(std::string path, const std::string& reason)
    : Error(fmt::format("{}: {}", path, reason)), path_(std::move(path)) {}

void throw_check_failed(const char* file, int line, const std::string& message) {
    throw Error(fmt::format("{} (at {}:{})", message, file, line));
}

}  // namespace radiant
