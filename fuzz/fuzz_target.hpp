#pragma once
// Shared by the libFuzzer targets: a reader may reject any input with radiant::Error (that is the contract);
// anything else — a crash, a sanitizer report, another exception type, std::bad_alloc from a size taken on
// trust — is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "radiant/core/error.hpp"

namespace radiant::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// A scratch path of this process for readers that take a path, not bytes.
inline std::filesystem::path scratch_path(const std::string& name) {
    return std::filesystem::temp_directory_path() /
           ("radiant-fuzz-" + std::to_string(::getpid()) + "-" + name);
}

template <class F>
void expect_clean(F&& f) {
    try {
        f();
    } catch (const radiant::Error&) {
        // rejected with a message: fine
    }
}

}  // namespace radiant::fuzz
