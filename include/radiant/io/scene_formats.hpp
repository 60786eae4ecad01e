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

// Any of the formats, by extension (a PLY is told from a compressed PLY by its elements).
Scene read_scene(const std::string& path);
void write_scene(const std::string& path, const Scene& scene);  // atomic

// What a lossy format changed: the largest position error (world units), the largest colour error (the DC
// colour 0.5 + C0·DC on a 0–1 scale), the largest opacity error and the largest SH-rest error over matching
// Gaussians (same index).
struct QuantisationError {
    double position = 0, colour = 0, opacity = 0, log_scale = 0, sh_rest = 0;
};
QuantisationError quantisation_error(const Scene& original, const Scene& decoded);

}  // namespace radiant
