#pragma once
// Whole-file reads and atomic writes. Nothing radiant writes is ever left half-written: the bytes go to a
// temporary file beside the target, flushed to disk, then renamed over it.
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace radiant {

// Throws IoError when the file cannot be opened or read.
std::string read_file(const std::string& path);

// Calls `write` on a stream to a temporary file, then renames it to `path`. If `write` throws or the
// stream fails, the temporary is removed, `path` is untouched, and IoError (or the original error)
// propagates.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write);
void write_file_atomic(const std::string& path, std::string_view bytes);

}  // namespace radiant
