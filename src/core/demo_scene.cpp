#include "radiant/core/demo_scene.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

namespace radiant {
namespace {

constexpr double kPi = std::numbers::pi;

// Appends flat Gaussians (thin along the surface normal) with a baked top light, so the shapes read as
// solid objects in any viewer without view-dependent colour.
class SurfaceWriter {
  public:
    explicit SurfaceWriter(Scene& s) : s_(s) {}

    void add(Vec3<double> p, Vec3<double> n, Vec3<double> colour, double scale) {
        n = normalize(n);
        double light = 0.7 + 0.3 * (-n.y);  // world up is −y
        for (int k = 0; k < 3; ++k) s_.means.push_back(float(p[k]));
        s_.log_scales.push_back(float(std::log(scale)));
        s_.log_scales.push_back(float(std::log(scale)));
        s_.log_scales.push_back(float(std::log(0.15 * scale)));
        // Rotation taking the local z axis to n: q ∝ (1 + n·z, z × n).
        Vec4<double> q =
            n.z > -0.999 ? Vec4<double>{1.0 + n.z, -n.y, n.x, 0.0} : Vec4<double>{0.0, 1.0, 0.0, 0.0};
        double inv = 1.0 / std::sqrt(dot(q, q));
        for (double v : {q.x, q.y, q.z, q.w}) s_.quats.push_back(float(v * inv));
        s_.opacity_logits.push_back(float(logit(0.95)));
        for (int k = 0; k < 3; ++k) {
            double c = std::min(1.0, colour[k] * light);
            s_.sh.push_back(float((c - 0.5) / kShC0));
        }
    }

  private:
    Scene& s_;
};

}  // namespace

DemoScene make_demo_scene(std::uint32_t seed) {
    DemoScene demo;
    demo.scene.sh_degree = 0;
    demo.centre = {0.0, 0.05, 0.0};
    demo.orbit_radius = 3.6;
    demo.up = {0.0, -1.0, 0.0};
    SurfaceWriter out(demo.scene);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> uni(0.0, 1.0);

    // Red sphere resting on the floor (y = 0.5).
    {
        const Vec3<double> c{-0.85, 0.0, 0.0};
        const double r = 0.5;
        const int n = 1500;
        const double scale = 1.0 * std::sqrt(4 * kPi * r * r / n);
        for (int i = 0; i < n; ++i) {
            double z = 2 * uni(rng) - 1, phi = 2 * kPi * uni(rng), s = std::sqrt(1 - z * z);
            Vec3<double> nrm{s * std::cos(phi), z, s * std::sin(phi)};
            out.add(c + r * nrm, nrm, {0.9, 0.15, 0.12}, scale);
        }
    }
    // Green cube, side 0.7, on the floor.
    {
        const Vec3<double> c{0.85, 0.15, 0.1};
        const double h = 0.35;
        const int per_face = 260;
        const double scale = 1.0 * std::sqrt(4 * h * h / per_face);
        for (int face = 0; face < 6; ++face) {
            int axis = face / 2;
            double sign = face % 2 ? 1.0 : -1.0;
            for (int i = 0; i < per_face; ++i) {
                Vec3<double> p{}, nrm{};
                p[axis] = sign * h;
                nrm[axis] = sign;
                p[(axis + 1) % 3] = (2 * uni(rng) - 1) * h;
                p[(axis + 2) % 3] = (2 * uni(rng) - 1) * h;
                out.add(c + p, nrm, {0.15, 0.75, 0.2}, scale);
            }
        }
    }
    // Blue torus standing upright behind the others, ring in the x–y plane.
    {
        const Vec3<double> c{0.0, -0.08, -0.95};
        const double big = 0.45, small = 0.13;
        const int n = 1500;
        const double scale = 1.0 * std::sqrt(4 * kPi * kPi * big * small / n);
        for (int i = 0; i < n; ++i) {
            double u = 2 * kPi * uni(rng), v = 2 * kPi * uni(rng);
            Vec3<double> ring{std::cos(u), std::sin(u), 0.0};
            Vec3<double> nrm = std::cos(v) * ring + std::sin(v) * Vec3<double>{0.0, 0.0, 1.0};
            out.add(c + big * ring + small * nrm, nrm, {0.15, 0.3, 0.95}, scale);
        }
    }
    // Checkered floor at y = 0.5 (normal −y, up), 0.5 squares.
    {
        const double half = 2.0;
        const int grid = 56;
        const double step = 2 * half / grid, scale = 0.6 * step;
        for (int i = 0; i < grid; ++i)
            for (int j = 0; j < grid; ++j) {
                double x = -half + (i + uni(rng)) * step, z = -half + (j + uni(rng)) * step;
                bool light = ((int(std::floor(x / 0.5)) + int(std::floor(z / 0.5))) & 1) == 0;
                double g = light ? 0.85 : 0.25;
                out.add({x, 0.5, z}, {0.0, -1.0, 0.0}, {g, g, g * 0.95}, scale);
            }
    }
    return demo;
}

}  // namespace radiant
