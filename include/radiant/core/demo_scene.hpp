#pragma once
// The built-in demo scene: a few thousand Gaussians forming a red sphere, a green cube, a blue torus and a
// checkered floor, generated in code so `radiant demo` needs no data. World up is −y (OpenCV-like).
#include <cstdint>

#include "radiant/core/scene.hpp"

namespace radiant {

struct DemoScene {
    Scene scene;
    Vec3<double> centre;  // where orbit cameras should look
    double orbit_radius;
    Vec3<double> up;
};

DemoScene make_demo_scene(std::uint32_t seed = 1);

}  // namespace radiant
