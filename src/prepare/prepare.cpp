#include "radiant/prepare/prepare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/io/colmap.hpp"
#include "radiant/io/image_io.hpp"
#include "radiant/prepare/subprocess.hpp"

namespace radiant {
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> photos_in(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return out;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_regular_file(ec) && is_image_extension(e.path().string())) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

// Where the photos of a folder input are: its top, else its images/ folder.
fs::path photo_folder(const fs::path& input) {
    if (!photos_in(input).empty()) return input;
    return input / "images";
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class Colmap {
  public:
    Colmap(std::string exe, std::string log) : exe_(std::move(exe)), log_(std::move(log)) {}

    void run(const std::string& stage, std::vector<std::string> args) const {
        args.insert(args.begin(), exe_);
        const ToolRun r = run_tool(args, log_);
        if (r.exit_code != 0)
            throw Error(fmt::format("COLMAP's {} failed (exit {}); its last lines (all of them in {}):\n{}",
                                    stage, r.exit_code, log_, r.tail));
    }
    bool has_cuda() const {
        std::string out;
        const ToolRun r = run_tool_capture({exe_, "-h"}, log_, out);
        return r.exit_code == 0 && out.find("with CUDA") != std::string::npos &&
               out.find("without CUDA") == std::string::npos;
    }

  private:
    std::string exe_, log_;
};

// The number after "Features:" on each of the feature extractor's lines written since `from`.
std::size_t features_logged(const std::string& log, std::streamoff from) {
    std::ifstream in(log);
    in.seekg(from);
    std::size_t total = 0;
    for (std::string line; std::getline(in, line);) {
        const auto at = line.find("Features:");
        if (at != std::string::npos) total += std::size_t(std::strtoull(line.c_str() + at + 9, nullptr, 10));
    }
    return total;
}

std::streamoff log_size(const std::string& log) {
    std::error_code ec;
    const auto n = fs::file_size(log, ec);
    return ec ? 0 : std::streamoff(n);
}

}  // namespace

bool is_video_file(const std::string& path) {
    std::error_code ec;
    return has_video_extension(path) && fs::is_regular_file(path, ec);
}

bool needs_prepare(const std::string& path) {
    if (is_video_file(path)) return true;
    std::error_code ec;
    if (!fs::is_directory(path, ec)) return false;
    if (!find_colmap_model(path).empty()) return false;
    for (const char* f : {"transforms.json", "transforms_train.json"})
        if (fs::exists(fs::path(path) / f, ec)) return false;
    return !photos_in(photo_folder(path)).empty();
}

PrepareResult prepare_dataset(const PrepareOptions& o) {
    const auto start = std::chrono::steady_clock::now();
    PrepareResult result;
    const fs::path data(o.output);
    const bool video = is_video_file(o.input);
    std::error_code ec;
    if (!video && !fs::is_directory(o.input, ec))
        throw IoError(o.input,
                      "not a folder of photos nor a video file (.mp4, .mov, .m4v, .avi, .mkv, .webm)");
    if (o.min_registered < 0 || o.min_registered > 1)
        throw Error(fmt::format("prepare: the registered share {} is not in 0..1", o.min_registered));
    const std::string colmap_exe = find_program("colmap");
    if (colmap_exe.empty())
        throw Error(
            "prepare needs COLMAP, which is not on PATH: install Debian's `colmap` package (apt install "
            "colmap) "
            "or put a COLMAP build's `colmap` on PATH");
    // An earlier prepare's model is only replaced when asked; a failed one (no sparse/0) is redone.
    const fs::path model_dir = data / "sparse" / "0";
    if (fs::exists(model_dir, ec) && !o.overwrite)
        throw IoError(model_dir.string(),
                      "an earlier prepare's model is here: give --overwrite to replace it, or "
                      "another -o");
    const fs::path images = data / "images", work = data / ".prepare";
    fs::create_directories(data);
    fs::remove_all(work);
    fs::create_directories(work);
    const std::string log = (data / "colmap.log").string();
    fs::remove(log, ec);

    // 1. The photos in DATA/images: a video's frames, or the folder's photos linked (copied across disks).
    auto t0 = std::chrono::steady_clock::now();
    const fs::path images_tmp = work / "images";
    if (video) {
        log_info("prepare [1/4] frames from {}", o.input);
        const VideoFrames f = extract_video_frames(o.input, images_tmp.string(), o.video, log);
        log_info(
            "prepare [1/4] {:.1f} s of video: {} frames at {:.2f} a second, the sharper of each two "
            "neighbours kept of {}",
            f.duration, f.kept, f.fps, f.candidates);
    } else {
        const fs::path from = photo_folder(o.input);
        const std::vector<fs::path> photos = photos_in(from);
        if (photos.empty())
            throw IoError(o.input, "no photos (.jpg, .jpeg, .png) in it nor in its images/ folder");
        const bool in_place = fs::exists(images, ec) && fs::equivalent(from, images, ec);
        if (!in_place) {
            fs::create_directories(images_tmp);
            for (const fs::path& p : photos) {
                const fs::path to = images_tmp / p.filename();
                fs::create_hard_link(p, to, ec);
                if (ec) fs::copy_file(p, to, fs::copy_options::overwrite_existing);
            }
        }
        log_info("prepare [1/4] {} photos from {}{}", photos.size(), from.string(),
                 in_place ? " (already in DATA/images)" : "");
    }
    if (fs::exists(images_tmp, ec)) {
        if (fs::exists(images, ec)) {
            if (!o.overwrite && !photos_in(images).empty())
                throw IoError(images.string(),
                              "holds photos already: give --overwrite to replace them, or another -o");
            fs::remove_all(images);
        }
        fs::rename(images_tmp, images);
    }
    result.images = int(photos_in(images).size());
    result.seconds_frames = seconds_since(t0);
    if (result.images < 3)
        throw IoError(o.input,
                      fmt::format("{} photos: structure from motion needs 3 at least, and a few dozen "
                                  "overlapping ones to work well",
                                  result.images));

    // 2. Features: SIFT on every photo, one shared camera unless asked otherwise.
    const Colmap colmap(colmap_exe, log);
    const bool gpu = colmap.has_cuda();
    const std::string database = (work / "database.db").string(), use_gpu = gpu ? "1" : "0";
    t0 = std::chrono::steady_clock::now();
    log_info("prepare [2/4] features: {} photos, {} {} camera{}, SIFT on the {}", result.images,
             o.single_camera ? "one shared" : "a", o.camera_model, o.single_camera ? "" : " per photo",
             gpu ? "GPU" : "CPU (this COLMAP has no CUDA)");
    const std::streamoff before = log_size(log);
    colmap.run("feature extraction",
               {"feature_extractor", "--database_path", database, "--image_path", images.string(),
                "--ImageReader.camera_model", o.camera_model, "--ImageReader.single_camera",
                o.single_camera ? "1" : "0", "--SiftExtraction.use_gpu", use_gpu});
    result.seconds_features = seconds_since(t0);
    const std::size_t features = features_logged(log, before);
    log_info("prepare [2/4] {} features ({} a photo) in {:.1f} s", features,
             features / std::size_t(result.images), result.seconds_features);

    // 3. Matching: along the sequence for video (neighbouring frames overlap), all pairs for photos.
    // Every pair grows as the square of the photos: past kExhaustiveUpTo, photos are taken as a walk in name
    // order (as phones and cameras number them), neighbours and their quadratic steps matched.
    constexpr int kExhaustiveUpTo = 150;
    const Matcher matcher = o.matcher != Matcher::automatic            ? o.matcher
                            : video || result.images > kExhaustiveUpTo ? Matcher::sequential
                                                                       : Matcher::exhaustive;
    if (o.matcher == Matcher::automatic && !video && matcher == Matcher::sequential)
        log_info(
            "prepare: {} photos, more than {}: matched in name order as a walk (--matcher exhaustive for "
            "photos taken in no order)",
            result.images, kExhaustiveUpTo);
    t0 = std::chrono::steady_clock::now();
    log_info("prepare [3/4] matching {}", matcher == Matcher::sequential
                                              ? "each frame with its neighbours (sequential)"
                                              : fmt::format("every pair of photos ({} pairs, exhaustive)",
                                                            result.images * (result.images - 1) / 2));
    if (matcher == Matcher::sequential)
        colmap.run("sequential matching",
                   {"sequential_matcher", "--database_path", database, "--SiftMatching.use_gpu", use_gpu,
                    "--SequentialMatching.overlap", "10", "--SequentialMatching.quadratic_overlap", "1"});
    else
        colmap.run("exhaustive matching",
                   {"exhaustive_matcher", "--database_path", database, "--SiftMatching.use_gpu", use_gpu});
    result.seconds_matching = seconds_since(t0);
    log_info("prepare [3/4] matched in {:.1f} s", result.seconds_matching);

    // 4. Mapping: incremental SfM; it may make several models when the photos fall into separate groups.
    t0 = std::chrono::steady_clock::now();
    log_info("prepare [4/4] mapping (incremental structure from motion)");
    const fs::path sparse_tmp = work / "sparse";
    fs::create_directories(sparse_tmp);
    // The mapper fails (exit 1, "failed to create sparse model") when no two photos make a start: that is
    // the photos' fault, explained below, not COLMAP's.
    const ToolRun mapped = run_tool({colmap_exe, "mapper", "--database_path", database, "--image_path",
                                     images.string(), "--output_path", sparse_tmp.string()},
                                    log);
    if (mapped.exit_code != 0 && mapped.tail.find("failed to create sparse model") == std::string::npos)
        throw Error(fmt::format("COLMAP's mapper failed (exit {}); its last lines (all of them in {}):\n{}",
                                mapped.exit_code, log, mapped.tail));
    result.seconds_mapping = seconds_since(t0);
    std::vector<std::pair<std::size_t, fs::path>> models;  // registered images, folder
    for (const auto& e : fs::directory_iterator(sparse_tmp, ec)) {
        if (find_colmap_model(e.path().string()) != e.path().string()) continue;
        models.push_back({read_colmap_model(e.path().string()).images.size(), e.path()});
    }
    std::sort(models.begin(), models.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    result.models = int(models.size());
    const std::string advice =
        video ? "film slower, with more overlap between moments, or take more frames (--fps, --frames)"
              : "take more photos, each part of the scene in three or more of them from nearby viewpoints";
    if (models.empty())
        throw Error(
            fmt::format("COLMAP registered none of the {} photos (no two of them made a start): {}. "
                        "Its log: {}",
                        result.images, advice, log));
    if (models.size() > 1) {
        std::string sizes;
        for (const auto& m : models) sizes += fmt::format("{}{}", sizes.empty() ? "" : ", ", m.first);
        log_warn(
            "prepare: COLMAP made {} separate models ({} photos): keeping the largest; the others' photos "
            "share too little with it",
            models.size(), sizes);
    }
    const ColmapModel model = read_colmap_model(models[0].second.string());
    result.registered = int(model.images.size());
    result.points = model.points.size();
    double error = 0;
    for (const ColmapPoint& p : model.points) error += p.error;
    result.mean_reprojection_error = model.points.empty() ? 0 : error / double(model.points.size());
    log_info(
        "prepare [4/4] {} of {} photos registered, {} points, mean reprojection error {:.3f} px, in {:.1f} s",
        result.registered, result.images, result.points, result.mean_reprojection_error,
        result.seconds_mapping);
    if (result.registered < std::max(3.0, o.min_registered * result.images))
        throw Error(fmt::format("COLMAP registered only {} of the {} photos: {}. Its log: {}",
                                result.registered, result.images, advice, log));
    if (result.registered < result.images)
        log_warn("prepare: {} photos not registered: training uses the {} that are",
                 result.images - result.registered, result.registered);

    // Only now does DATA/sparse/0 appear, whole: one rename.
    if (fs::exists(model_dir, ec)) fs::remove_all(model_dir);
    fs::create_directories(data / "sparse");
    fs::rename(models[0].second, model_dir);
    fs::rename(database, data / "database.db");
    fs::remove_all(work);
    result.model_dir = model_dir.string();
    log_info("prepare: {} ready in {:.1f} s (images/, sparse/0/, colmap.log)", o.output,
             seconds_since(start));
    return result;
}

}  // namespace radiant
