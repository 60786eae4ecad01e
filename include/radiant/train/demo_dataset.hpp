#pragma once
// The demo dataset: photographs of analytic shapes (two textured spheres, a box, a checkered floor) made by
// a small ray tracer — not Gaussians, so training must really approximate — written in the NeRF-synthetic
// layout (transforms_train.json / transforms_test.json, PNGs, points3D.ply with surface samples).
#include <cstdint>
#include <string>
#include <vector>

namespace radiant {

struct DemoDatasetOptions {
    int width = 128, height = 128;
    int train_views = 48, test_views = 8;
    double fov_x_deg = 40;
    double arc_deg = 360;  // azimuths the cameras spread over: 360 orbits, less is a handheld sweep
    int points = 4000;     // initial surface samples in points3D.ply
    std::uint32_t seed = 7;
    // OpenCV k1 k2 p1 p2 of the lens the photos are taken through (empty: an ideal pinhole). Each pixel's
    // ray goes through the lens, and transforms_*.json carry the coefficients: a distorted capture of the
    // same scene, as phones take them.
    std::vector<double> distortion;
    // Photos exposed unevenly, as a phone's auto-exposure and white balance leave them (issue 22): each
    // view's radiance is multiplied by per-channel gains exp(s·(a + b_c)), a ~ U(−1, 1) per view and
    // b_c ~ U(−0.3, 0.3) per channel, before 8-bit rounding. 0: every view exposed alike. The gains go to
    // exposure_gains.json ({"train/r_000": [r, g, b], …}).
    double exposure_spread = 0;
    // Surfaces with fine detail that never repeats (noise darkening the albedo), as real ones have: what
    // structure from motion matches features on (issue 24). Off: the smooth shapes and checkers alone.
    bool surface_detail = false;
};

void write_demo_dataset(const std::string& dir, const DemoDatasetOptions& options = {});

}  // namespace radiant
