#include "radiant/distributed/launch.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "radiant/core/error.hpp"
#include "radiant/io/file.hpp"

extern char** environ;

namespace radiant::distributed {
namespace {

int whole_number(const char* name, const char* text) {
    int value = 0;
    const char* end = text + std::strlen(text);
    const auto [at, ec] = std::from_chars(text, end, value);
    if (ec != std::errc() || at != end || at == text)
        throw Error(fmt::format("{} is '{}', not a whole number", name, text));
    return value;
}

// The environment of rank `rank`: this process's, with `set` over it.
std::vector<std::string> environment_with(const std::map<std::string, std::string>& set) {
    std::vector<std::string> out;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
        const std::string entry = *e;
        const std::size_t eq = entry.find('=');
        if (set.count(entry.substr(0, eq)) == 0) out.push_back(entry);
    }
    for (const auto& [key, value] : set) out.push_back(key + "=" + value);
    return out;
}

std::string how_it_ended(int status) {
    if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
    return "ended abnormally";
}

}  // namespace

RankPlace rank_place(const std::function<const char*(const char*)>& lookup) {
    const auto env = [&](const char* name) -> const char* {
        return lookup ? lookup(name) : std::getenv(name);
    };
    struct Scheme {
        const char *source, *rank, *size, *local;
    };
    for (const Scheme s :
         {Scheme{"radiant", "RADIANT_RANK", "RADIANT_WORLD_SIZE", "RADIANT_LOCAL_RANK"},
          Scheme{"mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"}}) {
        const char* rank = env(s.rank);
        if (rank == nullptr) continue;
        const char* size = env(s.size);
        if (size == nullptr) throw Error(fmt::format("{} is set but {} is not", s.rank, s.size));
        RankPlace p;
        p.source = s.source;
        p.rank = whole_number(s.rank, rank);
        p.world = whole_number(s.size, size);
        const char* local = env(s.local);
        p.local = local != nullptr ? whole_number(s.local, local) : p.rank;
        if (p.world < 1) throw Error(fmt::format("{} is {}: a run needs at least one rank", s.size, p.world));
        if (p.rank < 0 || p.rank >= p.world)
            throw Error(fmt::format("{} is {}, outside the {} ranks of {}", s.rank, p.rank, p.world, s.size));
        if (p.local < 0 || p.local >= p.world)
            throw Error(
                fmt::format("{} is {}, outside the {} ranks of {}", s.local, p.local, p.world, s.size));
        return p;
    }
    return {};
}

LaunchResult launch_ranks(int ranks, const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env, const std::function<bool()>& stop,
                          std::chrono::milliseconds grace) {
    RADIANT_CHECK(ranks >= 1, fmt::format("launch_ranks: {} ranks", ranks));
    RADIANT_CHECK(!argv.empty(), "launch_ranks: no program");
    // Everything the children need is built before fork: after it, a child of a threaded process may only
    // make async-signal-safe calls until it execs.
    std::vector<std::vector<std::string>> envs;
    for (int r = 0; r < ranks; ++r) {
        std::map<std::string, std::string> set = env;
        set["RADIANT_RANK"] = std::to_string(r);
        set["RADIANT_WORLD_SIZE"] = std::to_string(ranks);
        set["RADIANT_LOCAL_RANK"] = std::to_string(r);
        envs.push_back(environment_with(set));
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);

    std::vector<pid_t> pids(std::size_t(ranks), -1);
    std::vector<int> start_errors(std::size_t(ranks), 0);
    // Each rank leads a process group of its own, so a signal reaches whatever it started too.
    auto kill_all = [&](int signal) {
        for (pid_t p : pids)
            if (p > 0) ::kill(-p, signal);
    };
    for (int r = 0; r < ranks; ++r) {
        std::vector<char*> envp;
        for (const std::string& e : envs[std::size_t(r)]) envp.push_back(const_cast<char*>(e.c_str()));
        envp.push_back(nullptr);
        // A pipe closed by a successful exec: what comes through it is exec's errno.
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) {
            kill_all(SIGKILL);
            throw Error(fmt::format("launch_ranks: pipe: {}", std::strerror(errno)));
        }
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::setpgid(0, 0);
            ::close(fds[0]);
            ::execvpe(args[0], args.data(), envp.data());
            const int e = errno;
            [[maybe_unused]] const ssize_t w = ::write(fds[1], &e, sizeof e);
            ::_exit(127);
        }
        ::close(fds[1]);
        if (pid > 0) ::setpgid(pid, pid);  // also here: a signal may come before the child has run
        if (pid < 0) {
            ::close(fds[0]);
            kill_all(SIGKILL);
            throw Error(fmt::format("launch_ranks: fork: {}", std::strerror(errno)));
        }
        int e = 0;
        if (::read(fds[0], &e, sizeof e) == ssize_t(sizeof e)) start_errors[std::size_t(r)] = e;
        ::close(fds[0]);
        pids[std::size_t(r)] = pid;
    }

    LaunchResult result;
    bool ending = false;
    auto deadline = std::chrono::steady_clock::now();
    auto end_all = [&] {
        if (ending) return;
        ending = true;
        kill_all(SIGTERM);
        deadline = std::chrono::steady_clock::now() + grace;
    };
    std::size_t alive = pids.size();
    while (alive > 0) {
        for (std::size_t r = 0; r < pids.size(); ++r) {
            if (pids[r] <= 0) continue;
            int status = 0;
            const pid_t done = ::waitpid(pids[r], &status, WNOHANG);
            if (done == 0) continue;
            pids[r] = -1;
            --alive;
            const bool ok = done > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
            if (!ok && result.failed_rank < 0 && !result.stopped) {
                result.failed_rank = int(r);
                if (done < 0)
                    result.what = fmt::format("lost: waitpid failed ({})", std::strerror(errno));
                else if (start_errors[r] != 0)
                    result.what =
                        fmt::format("could not start {}: {}", argv[0], std::strerror(start_errors[r]));
                else
                    result.what = how_it_ended(status);
                end_all();
            }
        }
        if (alive == 0) break;
        if (!ending && stop && stop()) {
            result.stopped = true;
            end_all();
        }
        if (ending && std::chrono::steady_clock::now() > deadline) kill_all(SIGKILL);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return result;
}

NcclUniqueId share_nccl_id(const std::string& dir, const std::string& run, int rank, const NcclUniqueId& mine,
                           std::chrono::milliseconds timeout) {
    RADIANT_CHECK(!run.empty() && run.find('/') == std::string::npos,
                  fmt::format("share_nccl_id: '{}' is not a run token", run));
    const std::string file = (std::filesystem::path(dir) / (".nccl-id-" + run)).string();
    if (rank == 0) {
        write_file_atomic(file, std::string_view(mine.internal, sizeof mine.internal));
        return mine;
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::error_code ec;
    while (!std::filesystem::exists(file, ec)) {
        if (std::chrono::steady_clock::now() > deadline)
            throw Error(fmt::format(
                "{}: rank 0's NCCL id did not come within {} s (did rank 0 start, and do all ranks see {}?)",
                file, std::chrono::duration_cast<std::chrono::seconds>(timeout).count(), dir));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const std::string bytes = read_file(file);
    if (bytes.size() != sizeof(NcclUniqueId))
        throw IoError(file,
                      fmt::format("{} bytes, not an NCCL id of {}", bytes.size(), sizeof(NcclUniqueId)));
    NcclUniqueId id{};
    std::memcpy(id.internal, bytes.data(), sizeof id.internal);
    return id;
}

}  // namespace radiant::distributed
