#include "radiant/io/file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "radiant/core/error.hpp"

namespace radiant {
namespace {

std::string temporary_name(const std::string& path) {
    static std::atomic<unsigned> counter{0};  // distinct names for concurrent writers in one process
    return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

void fsync_path(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return;
    ::fsync(fd);
    ::close(fd);
}

}  // namespace

std::string read_file(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw IoError(path, "is a directory, expected a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw IoError(path, std::string("cannot open for reading: ") + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) throw IoError(path, "read failed");
    return std::move(ss).str();
}

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write) {
    const std::string tmp = temporary_name(path);
    try {
        {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            if (!out)
                throw IoError(path, std::string("cannot create temporary file: ") + std::strerror(errno));
            write(out);
            out.flush();
            if (!out) throw IoError(path, "write failed (disk full?)");
        }
        fsync_path(tmp);
        if (std::rename(tmp.c_str(), path.c_str()) != 0)
            throw IoError(path,
                          std::string("cannot rename temporary file into place: ") + std::strerror(errno));
    } catch (...) {
        std::remove(tmp.c_str());
        throw;
    }
}

void write_file_atomic(const std::string& path, std::string_view bytes) {
    write_file_atomic(path,
                      [&](std::ostream& out) { out.write(bytes.data(), std::streamsize(bytes.size())); });
}

std::vector<std::string> unique_file_stems(const std::vector<std::string>& names) {
    std::vector<std::string> stems;
    std::set<std::string> used;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::filesystem::path p(names[i]);
        std::string s = (p.parent_path() / p.stem()).generic_string();
        for (char& c : s)
            if (c == '/' || c == '\\' || c == ' ' || c == ':') c = '_';
        while (!s.empty() && (s.front() == '.' || s.front() == '_')) s.erase(s.begin());
        if (s.empty()) s = fmt::format("{:03d}", i);
        std::string stem = s;
        for (int k = 2; !used.insert(stem).second; ++k) stem = fmt::format("{}_{}", s, k);
        stems.push_back(stem);
    }
    return stems;
}

}  // namespace radiant
