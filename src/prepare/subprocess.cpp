#include "radiant/prepare/subprocess.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "radiant/core/error.hpp"

namespace radiant {
namespace fs = std::filesystem;

std::string find_program(const std::string& program) {
    if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0 ? program : "";
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        if (dir.empty()) continue;
        const fs::path candidate = fs::path(dir) / program;
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec) && access(candidate.c_str(), X_OK) == 0)
            return candidate.string();
    }
    return "";
}

namespace {

std::string quoted(const std::vector<std::string>& argv) {
    std::string s;
    for (const std::string& a : argv) {
        if (!s.empty()) s += ' ';
        s += a.find_first_of(" \t'\"") == std::string::npos ? a : "'" + a + "'";
    }
    return s;
}

std::string last_lines(const std::string& path, std::streamoff from, int n) {
    std::ifstream in(path, std::ios::binary);
    in.seekg(from);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(std::move(line));
    }
    std::string out;
    for (std::size_t i = lines.size() > std::size_t(n) ? lines.size() - std::size_t(n) : 0; i < lines.size();
         ++i)
        out += (out.empty() ? "" : "\n") + lines[i];
    return out;
}

// fork + exec with stdout to `out_fd` and stderr to `err_fd`; the exit code (128 + signal when killed).
int spawn(const std::vector<std::string>& argv, int out_fd, int err_fd) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    int ready[2];  // close-on-exec: a byte from the child means exec failed (errno follows)
    if (pipe2(ready, O_CLOEXEC) != 0)
        throw Error(fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
    const pid_t pid = fork();
    if (pid < 0) throw Error(fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
    if (pid == 0) {
        close(ready[0]);
        const int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        execvp(args[0], args.data());
        const int e = errno;
        if (write(ready[1], &e, sizeof e) < 0) {
        }
        _exit(127);
    }
    close(ready[1]);
    int exec_errno = 0;
    const bool exec_failed = read(ready[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
    close(ready[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (exec_failed) throw Error(fmt::format("cannot run {}: {}", argv[0], std::strerror(exec_errno)));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int open_log(const std::string& log, const std::vector<std::string>& argv) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) throw IoError(log, fmt::format("cannot open the log: {}", std::strerror(errno)));
    const std::string header = "\n$ " + quoted(argv) + "\n";
    if (write(fd, header.data(), header.size()) < 0) {
    }
    return fd;
}

}  // namespace

ToolRun run_tool(const std::vector<std::string>& argv, const std::string& log, int tail_lines) {
    RADIANT_CHECK(!argv.empty(), "run_tool: no command");
    const int fd = open_log(log, argv);
    const std::streamoff start = lseek(fd, 0, SEEK_END);
    ToolRun r;
    try {
        r.exit_code = spawn(argv, fd, fd);
    } catch (...) {
        close(fd);
        throw;
    }
    close(fd);
    r.tail = last_lines(log, start, tail_lines);
    return r;
}

ToolRun run_tool_capture(const std::vector<std::string>& argv, const std::string& log, std::string& out) {
    RADIANT_CHECK(!argv.empty(), "run_tool_capture: no command");
    const int fd = open_log(log, argv);
    const std::streamoff start = lseek(fd, 0, SEEK_END);
    char name[] = "/tmp/radiant-tool-XXXXXX";
    const int out_fd = mkstemp(name);
    if (out_fd < 0) {
        close(fd);
        throw Error(fmt::format("cannot make a temporary file: {}", std::strerror(errno)));
    }
    unlink(name);
    ToolRun r;
    try {
        r.exit_code = spawn(argv, out_fd, fd);
    } catch (...) {
        close(fd);
        close(out_fd);
        throw;
    }
    out.clear();
    lseek(out_fd, 0, SEEK_SET);
    char buffer[4096];
    for (ssize_t n; (n = read(out_fd, buffer, sizeof buffer)) > 0;) out.append(buffer, std::size_t(n));
    close(out_fd);
    close(fd);
    r.tail = last_lines(log, start, 15);
    return r;
}

}  // namespace radiant
