#pragma once
// The boundary between the C API and radiant's C++: every entry point runs its body through `guarded`, which
// turns each exception into a status code and the calling thread's last-error message.
#include <string>
#include <utility>

#include "radiant/c/radiant.h"

namespace radiant::capi {

// The calling thread's message for rd_last_error(). Thread-local, as errno: two threads calling radiant never
// see each other's failures.
std::string& last_error();

rd_status fail(rd_status status, std::string message);
rd_status status_of_current_exception();

template <class F>
rd_status guarded(F&& body) noexcept {
    last_error().clear();
    try {
        body();
        return RD_OK;
    } catch (...) {
        return status_of_current_exception();
    }
}

}  // namespace radiant::capi
