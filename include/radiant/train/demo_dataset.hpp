#pragma once
// The demo dataset: photographs of analytic shapes (two textured spheres, a box, a checkered floor) made by
// a small ray tracer — not Gaussians, so training must really approximate — written in the NeRF-synthetic
// layout (transforms_train.json / transforms_test.json, PNGs, points3D.ply with surface samples).
#include <cstdint>
#include <string>

namespace radiant {

struct DemoDatasetOptions {
    int width = 128, height = 128;
    int train_views = 48, test_views = 8;
    int points = 4000;  // initial surface samples in points3D.ply
    std::uint32_t seed = 7;
};

void write_demo_dataset(const std::string& dir, const DemoDatasetOptions& options = {});

}  // namespace radiant
