#pragma once
// `radiant prepare` (issue 24): from a folder of photos or a video to a dataset radiant trains on, with
// COLMAP — the field's structure-from-motion engine, Debian's `colmap` — doing the work: features, matching,
// mapping. The result is the standard layout, DATA/images and DATA/sparse/0, with the distorted camera model
// kept (radiant trains distorted cameras itself); COLMAP's own output goes to DATA/colmap.log.
#include <functional>
#include <string>

#include "radiant/prepare/video_frames.hpp"

namespace radiant {

enum class Matcher { automatic, exhaustive, sequential };

struct PrepareOptions {
    std::string input;   // a folder of photos (or one with an images/ folder) or a video file
    std::string output;  // DATA
    std::string camera_model = "OPENCV";   // COLMAP's name
    bool single_camera = true;             // one camera shared by every photo (one phone, one zoom)
    Matcher matcher = Matcher::automatic;  // automatic: sequential for a video or over 150 photos, else
                                           // exhaustive
    VideoFrameOptions video;
    bool overwrite = false;       // replace an earlier prepare's model in DATA
    double min_registered = 0.5;  // fewer of the images registered than this share is a failure
};

struct PrepareResult {
    int images = 0, registered = 0, models = 0;
    std::size_t points = 0;
    double mean_reprojection_error = 0;  // pixels
    double seconds_frames = 0, seconds_features = 0, seconds_matching = 0, seconds_mapping = 0;
    std::string model_dir;  // DATA/sparse/0
};

// Whether `path` is something prepare takes and a dataset reader does not: a video file, or a folder
// with photos (at its top or in images/) and no poses (no COLMAP model, no transforms*.json).
bool needs_prepare(const std::string& path);
bool is_video_file(const std::string& path);

// Runs the whole trip, with a progress line per stage. Throws Error explaining what went wrong (COLMAP
// missing, failing — with its last lines —, too few images registered); a failed prepare leaves no
// DATA/sparse/0.
PrepareResult prepare_dataset(const PrepareOptions& options);

}  // namespace radiant
