#pragma once
// Frames for structure from motion out of a phone video: ffmpeg samples twice the wanted rate, and of each
// two neighbouring frames the sharper is kept (motion blur is what handheld video has most of).
#include <string>

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

}  // namespace radiant
