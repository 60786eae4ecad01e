#include "radiant/prepare/video_frames.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/io/image_io.hpp"
#include "radiant/prepare/subprocess.hpp"

namespace radiant {
namespace fs = std::filesystem;

double sharpness(const Image<std::uint8_t>& image) {
    const int w = image.width, h = image.height, c = image.channels;
    if (w < 3 || h < 3) return 0;
    std::vector<double> grey(std::size_t(w) * std::size_t(h));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double sum = 0;
            for (int k = 0; k < std::min(c, 3); ++k) sum += image.at(x, y, k);
            grey[std::size_t(y) * std::size_t(w) + std::size_t(x)] = sum / std::min(c, 3);
        }
    double s = 0, s2 = 0;
    std::size_t n = 0;
    for (int y = 1; y + 1 < h; ++y)
        for (int x = 1; x + 1 < w; ++x) {
            const std::size_t i = std::size_t(y) * std::size_t(w) + std::size_t(x);
            const double l =
                grey[i - 1] + grey[i + 1] + grey[i - std::size_t(w)] + grey[i + std::size_t(w)] - 4 * grey[i];
            s += l;
            s2 += l * l;
            ++n;
        }
    const double mean = s / double(n);
    return s2 / double(n) - mean * mean;
}

namespace {

double video_duration(const std::string& ffprobe, const std::string& video, const std::string& log) {
    std::string out;
    const ToolRun r = run_tool_capture({ffprobe, "-v", "error", "-show_entries", "format=duration", "-of",
                                        "default=noprint_wrappers=1:nokey=1", video},
                                       log, out);
    double d = 0;
    if (r.exit_code != 0 || std::sscanf(out.c_str(), "%lf", &d) != 1 || !(d > 0) || !std::isfinite(d))
        throw IoError(video, fmt::format("ffprobe cannot read it as a video (see {}):\n{}", log, r.tail));
    return d;
}

}  // namespace

VideoFrames extract_video_frames(const std::string& video, const std::string& images,
                                 const VideoFrameOptions& o, const std::string& log) {
    if (o.fps < 0 || o.frames < 0) throw Error("video frames: --fps and --frames must be positive");
    if (o.fps > 0 && o.frames > 0) throw Error("video frames: give --fps or --frames, not both");
    const std::string ffmpeg = find_program("ffmpeg"), ffprobe = find_program("ffprobe");
    if (ffmpeg.empty() || ffprobe.empty())
        throw Error(
            fmt::format("{} is a video, and taking frames from it needs ffmpeg, which is not on PATH: "
                        "install Debian's `ffmpeg` package (apt install ffmpeg)",
                        video));
    VideoFrames r;
    r.duration = video_duration(ffprobe, video, log);
    r.fps = o.fps > 0 ? o.fps : double(o.frames > 0 ? o.frames : 200) / r.duration;
    if (o.fps == 0 && o.frames == 0) r.fps = std::min(r.fps, 4.0);  // a short clip: 4 a second at most
    const fs::path candidates = fs::path(images).parent_path() / ".frame-candidates";
    fs::remove_all(candidates);
    fs::create_directories(candidates);
    fs::create_directories(images);
    const ToolRun run =
        run_tool({ffmpeg, "-nostdin", "-v", "error", "-i", video, "-vf", fmt::format("fps={:.6f}", 2 * r.fps),
                  "-q:v", "2", (candidates / "%06d.jpg").string()},
                 log);
    if (run.exit_code != 0)
        throw IoError(video,
                      fmt::format("ffmpeg failed (exit {}; see {}):\n{}", run.exit_code, log, run.tail));
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(candidates))
        if (e.path().extension() == ".jpg") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    r.candidates = int(files.size());
    if (files.empty()) throw IoError(video, fmt::format("ffmpeg wrote no frames (see {})", log));
    // Of each two neighbours the sharper; measured on a copy at most 640 wide (blur shows there too).
    auto measure = [](const fs::path& p) {
        const Image<std::uint8_t> im = read_image(p.string());
        if (im.width <= 640) return sharpness(im);
        const int h = std::max(1, int(std::lround(double(im.height) * 640 / im.width)));
        return sharpness(resize_area(im, 640, h));
    };
    for (std::size_t i = 0; i < files.size(); i += 2) {
        std::size_t best = i;
        if (i + 1 < files.size() && measure(files[i + 1]) > measure(files[i])) best = i + 1;
        fs::rename(files[best], fs::path(images) / fmt::format("frame_{:05d}.jpg", r.kept));
        ++r.kept;
    }
    fs::remove_all(candidates);
    return r;
}

bool has_video_extension(const std::string& path) {
    static const char* kVideo[] = {".mp4", ".mov", ".m4v", ".avi", ".mkv", ".webm", ".mts", ".3gp"};
    std::string ext = fs::path(path).extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    return std::find(std::begin(kVideo), std::end(kVideo), ext) != std::end(kVideo);
}

std::vector<std::string> encode_video_command(const std::string& ffmpeg, const std::string& frames,
                                              double fps, const std::string& out) {
    return {ffmpeg,
            "-nostdin",
            "-y",
            "-v",
            "error",
            "-framerate",
            fmt::format("{:g}", fps),
            "-i",
            frames,
            "-vf",
            "pad=ceil(iw/2)*2:ceil(ih/2)*2",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            "-crf",
            "18",
            "-movflags",
            "+faststart",
            out};
}

void encode_video(const std::string& frames, double fps, const std::string& out, const std::string& log) {
    if (!(fps > 0) || !std::isfinite(fps))
        throw Error(fmt::format("{}: frame rate {} must be positive", out, fps));
    const std::string ffmpeg = find_program("ffmpeg");
    if (ffmpeg.empty())
        throw IoError(
            out, "writing a video needs ffmpeg, which is not on PATH: install Debian's `ffmpeg` package");
    // ffmpeg picks the container from the extension: the temporary file keeps it.
    const fs::path target(out);
    const fs::path partial = target.parent_path() / (".partial-" + target.filename().string());
    const ToolRun r = run_tool(encode_video_command(ffmpeg, frames, fps, partial.string()), log);
    std::error_code ec;
    if (r.exit_code != 0) {
        fs::remove(partial, ec);
        throw IoError(out,
                      fmt::format("ffmpeg failed (exit {}; all of it in {}):\n{}", r.exit_code, log, r.tail));
    }
    fs::rename(partial, target);
}

}  // namespace radiant
