#pragma once
// Video in and out, through ffmpeg: frames for structure from motion out of a phone video (ffmpeg samples
// twice the wanted rate, and of each two neighbouring frames the sharper is kept: motion blur is what
// handheld video has most of), and rendered frames joined into a fly-through.
#include <string>
#include <vector>

#include "radiant/core/image.hpp"

namespace radiant {

struct VideoFrameOptions {
    double fps = 0;  // frames per second of video kept; 0: from `frames`
    int frames = 0;  // frames kept over the whole video; 0 with fps 0: 200, fewer for a shorter video
};

struct VideoFrames {
    double duration = 0;  // seconds
    double fps = 0;       // the rate kept
    int candidates = 0;   // frames sampled
    int kept = 0;         // written to the images folder
};

// Sharpness of a photo: the variance of the Laplacian of its grey levels (0..255 scale).
double sharpness(const Image<std::uint8_t>& image);

// Writes frame_00000.jpg, … into `images` (made; it must not hold images already). ffmpeg's and ffprobe's
// output go to `log`. Throws Error naming the video when ffmpeg is missing or fails.
VideoFrames extract_video_frames(const std::string& video, const std::string& images,
                                 const VideoFrameOptions& options, const std::string& log);

// Whether a path names a video file by its extension (.mp4, .mov, .m4v, .avi, .mkv, .webm, .mts, .3gp).
bool has_video_extension(const std::string& path);

// The ffmpeg command joining numbered frames (`frames`, a printf pattern such as DIR/%03d.png) into an
// H.264 video at `fps` (odd sizes padded to even, as its yuv420p needs): what is run, or said to run.
std::vector<std::string> encode_video_command(const std::string& ffmpeg, const std::string& frames,
                                              double fps, const std::string& out);

// Runs it into a temporary file beside `out`, renamed over it once whole. Throws Error naming `out` when
// ffmpeg is missing or fails.
void encode_video(const std::string& frames, double fps, const std::string& out, const std::string& log);

}  // namespace radiant
