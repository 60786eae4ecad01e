#pragma once
// Running the external tools `radiant prepare` drives (COLMAP, ffmpeg): found on PATH, their output appended
// to a log file, never mixed into radiant's own.
#include <string>
#include <vector>

namespace radiant {

// The full path of `program` on PATH; empty when it is not there.
std::string find_program(const std::string& program);

struct ToolRun {
    int exit_code = 0;  // 128 + signal when it was killed
    std::string tail;   // the last lines it wrote (stdout and stderr), for an error message
};

// Runs argv (argv[0] a path or a name on PATH) with stdout and stderr appended to `log`, after a line
// giving the command. Throws Error when it cannot be started at all.
ToolRun run_tool(const std::vector<std::string>& argv, const std::string& log, int tail_lines = 15);

// The same, but its standard output returned instead (stderr still to `log`): for ffprobe's answers.
ToolRun run_tool_capture(const std::vector<std::string>& argv, const std::string& log, std::string& out);

}  // namespace radiant
