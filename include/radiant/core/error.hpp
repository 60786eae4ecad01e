#pragma once
// radiant's exceptions (STYLE.md "Errors"): thrown at boundaries, caught once in main.
#include <cstddef>
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

// Memory that is not there: a budget that would be exceeded or an allocation that failed. The message says
// what needed how much, and what to change (downscale the images, cap the Gaussians).
class OutOfMemory : public Error {
  public:
    using Error::Error;
};

// The user asked the work to stop (Ctrl-C, SIGTERM) before it had anything to save.
class Interrupted : public Error {
  public:
    using Error::Error;
};

// "1.23 GiB", "512.0 MiB": sizes in messages.
std::string format_bytes(std::size_t bytes);

[[noreturn]] void throw_check_failed(const char* file, int line, const std::string& message);

}  // namespace radiant

// Always-on check of an API precondition; throws radiant::Error naming the place.
#define RADIANT_CHECK(cond, msg)                                               \
    do {                                                                       \
        if (!(cond)) ::radiant::throw_check_failed(__FILE__, __LINE__, (msg)); \
    } while (0)
