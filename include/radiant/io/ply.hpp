#pragma once
// The standard 3DGS PLY (DESIGN.md §3): one `vertex` element with
//   x y z [nx ny nz] f_dc_0..2 f_rest_0..(3·(K−1)−1) opacity scale_0..2 rot_0..3
// f_rest channel-major (all R coefficients, then G, then B), opacity a logit, scales logs, rot w first.
// Read by property name from ascii, binary little- or big-endian; other properties and elements are ignored.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "radiant/core/scene.hpp"

namespace radiant {

enum class PlyFormat { ascii, binary_little_endian, binary_big_endian };

struct PlyWriteOptions {
    PlyFormat format = PlyFormat::binary_little_endian;
    bool normals = true;  // write nx ny nz (zeros), as Inria 3DGS does
};

// Throws IoError naming the file and the problem for any malformed input.
Scene read_ply(const std::string& path);
Scene parse_ply(std::string_view bytes, const std::string& name);

// Atomic write (temporary file + rename).
void write_ply(const std::string& path, const Scene& scene, const PlyWriteOptions& options = {});
std::string format_ply(const Scene& scene, const PlyWriteOptions& options = {});

}  // namespace radiant

namespace radiant {

// Plain point clouds (x y z [red green blue]), as COLMAP or Inria 3DGS write points3D.ply.
struct PointCloud {
    std::vector<Vec3<float>> points;
    std::vector<std::array<std::uint8_t, 3>> colours;  // grey (128) when the file has none
};
PointCloud read_point_cloud_ply(const std::string& path);
void write_point_cloud_ply(const std::string& path, const PointCloud& cloud);

}  // namespace radiant
