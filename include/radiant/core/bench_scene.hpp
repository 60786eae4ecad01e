#pragma once
// The synthetic "trained-like" benchmark scene of DESIGN.md §7, so radiant's timings compare with the
// recorded gsplat and Inria numbers: camera at the origin looking down +z, N centres on a wall, a floor and
// three spheres, SH degree 3.
#include <cstdint>

#include "radiant/core/camera.hpp"
#include "radiant/core/scene.hpp"

namespace radiant {

struct BenchSceneOptions {
    std::size_t count = 1000000;
    bool heavier = false;  // log-scale mean ln 0.03 instead of ln 0.01
    std::uint32_t seed = 0;
};

Scene make_bench_scene(const BenchSceneOptions& options);

// Identity world→camera, fx = fy = 0.8·W, principal point at the image centre.
Camera bench_camera(int width, int height);

}  // namespace radiant
