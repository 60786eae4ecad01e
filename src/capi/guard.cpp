#include "guard.hpp"

#include <new>
#include <stdexcept>

#include "radiant/core/error.hpp"

namespace radiant::capi {

std::string& last_error() {
    thread_local std::string message;
    return message;
}

rd_status fail(rd_status status, std::string message) {
    last_error() = std::move(message);
    return status;
}

rd_status status_of_current_exception() {
    try {
        throw;
    } catch (const Interrupted& e) {
        return fail(RD_ERROR_STOPPED, e.what());
    } catch (const OutOfMemory& e) {
        return fail(RD_ERROR_OUT_OF_MEMORY, e.what());
    } catch (const IoError& e) {
        return fail(RD_ERROR_IO, e.what());
    } catch (const Error& e) {
        return fail(RD_ERROR_INVALID_ARGUMENT, e.what());
    } catch (const std::bad_alloc&) {
        return fail(RD_ERROR_OUT_OF_MEMORY, "out of host memory");
    } catch (const std::exception& e) {
        return fail(RD_ERROR_INTERNAL, e.what());
    } catch (...) {
        return fail(RD_ERROR_INTERNAL, "unknown error");
    }
}

}  // namespace radiant::capi
