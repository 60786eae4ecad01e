#pragma once
// radiant's exceptions (STYLE.md "Errors"): thrown at boundaries, caught once in main.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace radiant {

class Error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// A file that cannot be read or written, or whose contents are wrong. The message names the path, the
// position when known (byte offset or line) and what was expected against what was found.
class IoError : public Error {
  public:
    IoError(std::string path, const std::string& reason);
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

[[noreturn]] void throw_check_failed(const char* file, int line, const std::string& message);

}  // namespace radiant

// Always-on check of an API precondition; throws radiant::Error naming the place.
#define RADIANT_CHECK(cond, msg)                                               \
    do {                                                                       \
        if (!(cond)) ::radiant::throw_check_failed(__FILE__, __LINE__, (msg)); \
    } while (0)
