#include "radiant/core/system_memory.hpp"

#include <unistd.h>

#include <fstream>
#include <string>

namespace radiant {

std::size_t available_host_memory() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::size_t kib = 0;
    std::string unit;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024;
    // Not Linux, or an old kernel: the free pages (an underestimate, never an overestimate).
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? std::size_t(pages) * std::size_t(page) : 0;
}

}  // namespace radiant
