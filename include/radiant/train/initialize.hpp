#pragma once
// The initial Gaussians of a training run (Inria 3DGS): one per SfM point (or random points in the cameras'
// bounds when there are none), isotropic scale from the mean distance to the 3 nearest neighbours, identity
// rotation, opacity 0.1, SH DC from the point colour, higher SH zero.
#include <cstdint>

#include "radiant/core/scene.hpp"
#include "radiant/io/dataset.hpp"

namespace radiant {

struct InitOptions {
    int sh_degree = 3;
    std::size_t random_points = 100000;  // when the dataset has no points
    double initial_opacity = 0.1;
    double initial_scale = 1.0;  // × the mean distance to the 3 nearest points
    std::uint32_t seed = 0;
};

// Random points when the dataset has none: NeRF-synthetic in the cube [−1.3, 1.3]³ as Inria 3DGS; other
// layouts in a cube around the cameras' focus point reaching the farthest camera, only points that some
// training camera sees.
Scene initial_scene(const Dataset& dataset, const InitOptions& options = {});

// One Gaussian per point; colours 0..255.
Scene scene_from_points(const std::vector<Vec3<float>>& points,
                        const std::vector<std::array<std::uint8_t, 3>>& colours, const InitOptions& options);

}  // namespace radiant
