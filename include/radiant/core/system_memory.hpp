#pragma once
// The host's memory, for checks made before a large allocation (issue 9: an image set that does not fit is
// an error that says so, not a crash or a swap storm).
#include <cstddef>

namespace radiant {

// Memory available to a new allocation without swapping (Linux MemAvailable); 0 when unknown.
std::size_t available_host_memory();

}  // namespace radiant
