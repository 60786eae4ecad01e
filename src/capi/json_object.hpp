#pragma once
// A caller's JSON argument (dataset options, a training config) as an object, or an Error naming `what`.
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "radiant/core/error.hpp"

namespace radiant::capi {

inline nlohmann::json parse_json_object(const char* text, const char* what) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw Error(fmt::format("{}: not JSON ({})", what, e.what()));
    }
    if (!j.is_object()) throw Error(fmt::format("{}: expected a JSON object", what));
    return j;
}

}  // namespace radiant::capi
