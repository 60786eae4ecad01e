#pragma once
// Whole-file reads and atomic writes. Nothing radiant writes is ever left half-written: the bytes go to a
// temporary file beside the target, flushed to disk, then renamed over it.
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace radiant {

// Throws IoError when the file cannot be opened or read.
std::string read_file(const std::string& path);

// Calls `write` on a stream to a temporary file, then renames it to `path`. If `write` throws or the
// stream fails, the temporary is removed, `path` is untouched, and IoError (or the original error)
// propagates.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write);
void write_file_atomic(const std::string& path, std::string_view bytes);

// File names (no extension) for things named by paths: the name without its extension, folders joined by
// '_' ("test/r_0.png" → "test_r_0"), made unique with a suffix when two still meet; an empty name becomes
// its index ("007").
std::vector<std::string> unique_file_stems(const std::vector<std::string>& names);

}  // namespace radiant
