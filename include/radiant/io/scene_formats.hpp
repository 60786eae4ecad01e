#pragma once
// The formats people share trained scenes in, besides the standard PLY (ply.hpp):
//   .splat            antimatter15's 32 bytes per splat: position f32×3, scale f32×3 (linear), RGBA u8
//                     (colour = 0.5 + C0·DC, alpha = opacity), quaternion u8×4 (w x y z, q·128 + 128); DC
//                     only;
//   .compressed.ply   SuperSplat's chunked PLY: per 256 splats a `chunk` of float bounds (position,
//                     log-scale, colour), per splat four uint32 (position 11-10-11, rotation smallest-three
//                     2+10+10+10, log-scale 11-10-11, RGBA 8-8-8-8 within the chunk's bounds), optional `sh`
//                     element of uint8 f_rest (value/8 + 0.5 in 1/256 steps);
//   .spz              Niantic's SPZ: header 'NGSP', positions 24-bit fixed point, alpha/colour (DC·0.15 +
//   0.5)
//                     /log-scale ((s + 10)·16) u8, rotation (v2: xyz u8; v3+: smallest-three u32), SH u8
//                     ((x·128 + 128) on 5-bit buckets for degree 1, 4-bit above). v2/v3 are one gzip stream,
//                     v4 a plain 32-byte header, a table of contents and one zstd stream per attribute.
//                     Coordinates are stored as they are (no axis flip), as splat-transform does.
// Readers throw IoError naming the file for anything malformed; writers return the bytes.
#include <cstddef>
#include <string>
#include <string_view>

#include "radiant/core/scene.hpp"

namespace radiant {

enum class SceneFormat { ply, splat, compressed_ply, spz };

// By extension: .splat, .spz, .compressed.ply, .ply; IoError for anything else.
SceneFormat scene_format_from_path(const std::string& path);
const char* scene_format_name(SceneFormat f);

std::string encode_splat(const Scene& scene);
Scene decode_splat(std::string_view bytes, const std::string& name);

std::string encode_compressed_ply(const Scene& scene);
Scene decode_compressed_ply(std::string_view bytes, const std::string& name);

std::string encode_spz(const Scene& scene, int version = 4);  // writes v4 (zstd) or v2/v3 (gzip)
Scene decode_spz(std::string_view bytes, const std::string& name);

// What a format can hold of a scene. A value it cannot store at all is an Error naming the Gaussian and
// the format's limit (.splat's linear float32 scales: log-scales in [−87, 88]; SPZ's 24-bit positions with
// 12 fractional bits: |coordinate| < 2048). Values a format clamps by design — SPZ's log-scales to
// [−10, 5.94], compressed PLY's to [−20, 20] — are counted for a warning.
struct FormatFit {
    std::size_t clamped = 0;  // values the format will clamp
    std::string what;         // which, for the warning: "log-scales outside [−10, 5.94]"
};
FormatFit check_format_fit(const Scene& scene, SceneFormat format);

// A scene file's format: by extension (any case), a PLY told from a compressed PLY by its elements.
SceneFormat scene_file_format(const std::string& path);
// Any of the formats; a file holding no Gaussians is an IoError.
Scene read_scene(const std::string& path);
// Atomic, and only once check_format_fit passed: a scene a format cannot hold writes nothing. Returns the
// fit (what was clamped).
FormatFit write_scene(const std::string& path, const Scene& scene);

// What a lossy format changed: the largest position error (world units), the largest colour error (the DC
// colour 0.5 + C0·DC on a 0–1 scale), the largest opacity error and the largest SH-rest error over matching
// Gaussians (same index).
struct QuantisationError {
    double position = 0, colour = 0, opacity = 0, log_scale = 0, sh_rest = 0;
};
QuantisationError quantisation_error(const Scene& original, const Scene& decoded);

}  // namespace radiant
