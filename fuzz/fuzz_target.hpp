#pragma once
// Shared by the libFuzzer targets: a reader may reject any input with radiant::Error (that is the contract);
// anything else — a crash, a sanitizer report, another exception type, std::bad_alloc from a size taken on
// trust — is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "radiant/core/error.hpp"

namespace radiant::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
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
