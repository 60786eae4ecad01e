#include "radiant/train/demo_dataset.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numbers>
#include <optional>
#include <random>

#include "radiant/core/distortion.hpp"
#include "radiant/core/error.hpp"
#include "radiant/core/vec.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/image_io.hpp"
#include "radiant/io/ply.hpp"

namespace radiant {
namespace {

using V = Vec3<double>;
constexpr double kPi = std::numbers::pi;

// World: y up, floor at y = 0 (OpenGL-style, as NeRF-synthetic scenes).
struct Hit {
    double t;
    V p, n, albedo;
};

struct Sphere {
    V c;
    double r;
    int texture;  // 0: latitude/longitude checker red–white, 1: blue–yellow stripes
};

const Sphere kSpheres[2] = {{{-0.6, 0.45, 0.1}, 0.45, 0}, {{0.55, 0.35, -0.4}, 0.35, 1}};
const V kBoxCentre{0.35, 0.25, 0.55}, kBoxHalf{0.25, 0.25, 0.25};
const double kBoxYaw = 0.5;
const double kFloorHalf = 1.6;
const V kLight = normalize(V{0.4, 1.0, 0.3});
const V kBackground{1, 1, 1};

V sphere_albedo(const Sphere& s, V n) {
    const double lat = std::asin(std::clamp(n.y, -1.0, 1.0)), lon = std::atan2(n.z, n.x);
    if (s.texture == 0) {
        const bool odd = (int(std::floor(lat / (kPi / 6))) + int(std::floor(lon / (kPi / 6)))) & 1;
        return odd ? V{0.85, 0.12, 0.1} : V{0.95, 0.92, 0.88};
    }
    return (int(std::floor(lat / (kPi / 10))) & 1) ? V{0.15, 0.3, 0.9} : V{0.95, 0.8, 0.15};
}

V rotate_y(V v, double a) {
    return {std::cos(a) * v.x + std::sin(a) * v.z, v.y, -std::sin(a) * v.x + std::cos(a) * v.z};
}

std::optional<Hit> trace(V o, V d) {
    std::optional<Hit> best;
    auto consider = [&](double t, V n, V albedo) {
        if (t > 1e-6 && (!best || t < best->t)) best = Hit{t, o + t * d, n, albedo};
    };
    for (const Sphere& s : kSpheres) {
        const V oc = o - s.c;
        const double b = dot(oc, d), c = dot(oc, oc) - s.r * s.r, disc = b * b - c;
        if (disc < 0) continue;
        const double t = -b - std::sqrt(disc);
        if (t > 1e-6) {
            const V n = normalize(o + t * d - s.c);
            consider(t, n, sphere_albedo(s, n));
        }
    }
    {  // box, rotated about y: slab test in its frame
        const V lo = rotate_y(o - kBoxCentre, -kBoxYaw), ld = rotate_y(d, -kBoxYaw);
        double t0 = -1e30, t1 = 1e30;
        int axis = -1;
        double sign = 1;
        bool miss = false;
        for (int a = 0; a < 3 && !miss; ++a) {
            if (std::abs(ld[a]) < 1e-12) {
                miss = std::abs(lo[a]) > kBoxHalf[a];
                continue;
            }
            double ta = (-kBoxHalf[a] - lo[a]) / ld[a], tb = (kBoxHalf[a] - lo[a]) / ld[a];
            double s = -1;
            if (ta > tb) std::swap(ta, tb), s = 1;
            if (ta > t0) t0 = ta, axis = a, sign = s;
            t1 = std::min(t1, tb);
            miss = t0 > t1;
        }
        if (!miss && axis >= 0 && t0 > 1e-6) {
            V n{};
            n[axis] = sign;
            const V lp = lo + t0 * ld;
            // a darker frame around each face
            const int u = (axis + 1) % 3, w = (axis + 2) % 3;
            const bool edge = std::abs(lp[u]) > 0.8 * kBoxHalf[u] || std::abs(lp[w]) > 0.8 * kBoxHalf[w];
            consider(t0, rotate_y(n, kBoxYaw), edge ? V{0.05, 0.35, 0.1} : V{0.2, 0.8, 0.3});
        }
    }
    if (d.y < -1e-9) {  // floor
        const double t = -o.y / d.y;
        const V p = o + t * d;
        if (std::abs(p.x) < kFloorHalf && std::abs(p.z) < kFloorHalf) {
            const bool odd = (int(std::floor(p.x / 0.4)) + int(std::floor(p.z / 0.4))) & 1;
            consider(t, {0, 1, 0}, odd ? V{0.25, 0.25, 0.3} : V{0.8, 0.8, 0.75});
        }
    }
    return best;
}

// Value noise in [0, 1] on a unit lattice: a hash per lattice point, smoothly interpolated.
double value_noise(V p) {
    auto lattice = [](long x, long y, long z) {
        std::uint64_t h = std::uint64_t(x) * 0x9E3779B97F4A7C15ull ^
                          std::uint64_t(y) * 0xC2B2AE3D27D4EB4Full ^ std::uint64_t(z) * 0x165667B19E3779F9ull;
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 32;
        return double(h >> 11) * 0x1.0p-53;
    };
    const V f{std::floor(p.x), std::floor(p.y), std::floor(p.z)};
    const V u = p - f;
    const V w{u.x * u.x * (3 - 2 * u.x), u.y * u.y * (3 - 2 * u.y), u.z * u.z * (3 - 2 * u.z)};
    double sum = 0;
    for (int c = 0; c < 8; ++c) {
        const int dx = c & 1, dy = (c >> 1) & 1, dz = c >> 2;
        sum += (dx ? w.x : 1 - w.x) * (dy ? w.y : 1 - w.y) * (dz ? w.z : 1 - w.z) *
               lattice(long(f.x) + dx, long(f.y) + dy, long(f.z) + dz);
    }
    return sum;
}

// Fine detail that never repeats, as on real surfaces: three octaves of value noise (wavelengths 0.06 to
// 0.015 scene units, a few pixels in a 320-pixel view) scaling the albedo by 0.2 to 1.
double surface_detail(V p) {
    double n = 0, weight = 0.5;
    for (double frequency : {16.0, 32.0, 64.0}) {
        n += weight * value_noise(frequency * p);
        weight *= 0.5;
    }
    return std::clamp(0.2 + 0.8 * (2 * n / 0.875 - 0.5), 0.2, 1.0);
}

V shade(const Hit& h, bool detail) {
    const double lambert = std::max(0.0, dot(h.n, kLight));
    const bool shadow = lambert > 0 && trace(h.p + 1e-4 * h.n, kLight).has_value();
    const double light = 0.35 + 0.65 * (shadow ? 0.0 : lambert);
    return (light * (detail ? surface_detail(h.p) : 1.0)) * h.albedo;
}

V radiance(V o, V d, bool detail) {
    const auto h = trace(o, d);
    return h ? shade(*h, detail) : kBackground;
}

struct View {
    V eye;
    std::string file;
};

// OpenGL camera-to-world looking from eye at the target (x right, y up, z back).
nlohmann::json c2w_json(V eye, V target) {
    const V back = normalize(eye - target);
    const V right = normalize(cross(V{0, 1, 0}, back));
    const V up = cross(back, right);
    return {{right.x, up.x, back.x, eye.x},
            {right.y, up.y, back.y, eye.y},
            {right.z, up.z, back.z, eye.z},
            {0, 0, 0, 1}};
}

}  // namespace

void write_demo_dataset(const std::string& dir, const DemoDatasetOptions& o) {
    namespace fs = std::filesystem;
    fs::create_directories(fs::path(dir) / "train");
    fs::create_directories(fs::path(dir) / "test");
    const double fov_x = o.fov_x_deg * kPi / 180.0, radius = 3.4;
    const V target{0, 0.35, 0};
    std::mt19937 rng(o.seed);
    std::uniform_real_distribution<double> u(0, 1);
    auto make_views = [&](int n, const char* split, double phase) {
        std::vector<View> views;
        for (int i = 0; i < n; ++i) {
            const double az = o.arc_deg * kPi / 180.0 * (i + phase) / n;
            const double el = (15.0 + 40.0 * ((i * 7 % n) + 0.5) / n) * kPi / 180.0;
            const V eye =
                target + radius * V{std::cos(el) * std::cos(az), std::sin(el), std::cos(el) * std::sin(az)};
            views.push_back({eye, fmt::format("{}/r_{:03d}", split, i)});
        }
        return views;
    };
    const auto train = make_views(o.train_views, "train", 0.0), test = make_views(o.test_views, "test", 0.37);
    const double f = 0.5 * o.width / std::tan(0.5 * fov_x);
    RADIANT_CHECK(o.distortion.empty() || o.distortion.size() == 4, "demo lens: k1 k2 p1 p2");
    Distortion<double> lens;
    if (!o.distortion.empty()) {
        lens.model = CameraModel::opencv;
        for (int i = 0; i < 4; ++i) lens.k[i] = o.distortion[std::size_t(i)];
    }
    nlohmann::json gains_doc = nlohmann::json::object();
    std::mt19937 exposure_rng(o.seed + 101);
    auto view_gains = [&](const View& v) {
        V g{1, 1, 1};
        if (o.exposure_spread <= 0) return g;
        std::uniform_real_distribution<double> a(-1, 1), b(-0.3, 0.3);
        const double shared = a(exposure_rng);
        for (int k = 0; k < 3; ++k) g[k] = std::exp(o.exposure_spread * (shared + b(exposure_rng)));
        gains_doc[v.file] = {g.x, g.y, g.z};
        return g;
    };
    auto render_split = [&](const std::vector<View>& views, const char* json_name) {
        nlohmann::json doc;
        doc["camera_angle_x"] = fov_x;
        if (!o.distortion.empty()) {
            const char* keys[] = {"k1", "k2", "p1", "p2"};
            for (int i = 0; i < 4; ++i) doc[keys[i]] = o.distortion[std::size_t(i)];
        }
        doc["frames"] = nlohmann::json::array();
        for (const View& v : views) {
            const nlohmann::json m = c2w_json(v.eye, target);
            const V right{m[0][0], m[1][0], m[2][0]}, up{m[0][1], m[1][1], m[2][1]},
                back{m[0][2], m[1][2], m[2][2]};
            Image<std::uint8_t> img(o.width, o.height, 3);
            const V gain = view_gains(v);
#pragma omp parallel for schedule(dynamic)
            for (int y = 0; y < o.height; ++y)
                for (int x = 0; x < o.width; ++x) {
                    V c{};
                    for (int s = 0; s < 4; ++s) {  // 2×2 supersampling
                        const double px = x + 0.25 + 0.5 * (s & 1), py = y + 0.25 + 0.5 * (s >> 1);
                        Vec2<double> p;  // the ray's ideal (undistorted) image-plane point
                        const bool ok = undistort(
                            lens, Vec2<double>{(px - 0.5 * o.width) / f, (py - 0.5 * o.height) / f}, p);
                        c += 0.25 *
                             (ok ? radiance(v.eye, normalize(p.x * right - p.y * up - back), o.surface_detail)
                                 : V{});
                    }
                    for (int k = 0; k < 3; ++k)
                        img.at(x, y, k) =
                            std::uint8_t(std::lround(std::clamp(gain[k] * c[k], 0.0, 1.0) * 255));
                }
            write_png((fs::path(dir) / (v.file + ".png")).string(), img);
            doc["frames"].push_back({{"file_path", "./" + v.file}, {"transform_matrix", m}});
        }
        write_file_atomic((fs::path(dir) / json_name).string(), doc.dump(2));
    };
    render_split(train, "transforms_train.json");
    render_split(test, "transforms_test.json");
    if (o.exposure_spread > 0)
        write_file_atomic((fs::path(dir) / "exposure_gains.json").string(), gains_doc.dump(2));

    // Initial points: surface samples hit by rays from all around (as an SfM cloud would be), coloured as
    // lit.
    PointCloud pc;
    std::normal_distribution<double> n01(0, 1);
    while (int(pc.points.size()) < o.points) {
        V dir = normalize(V{n01(rng), std::abs(n01(rng)), n01(rng)});
        const V o_ray = target + 3.0 * dir;
        const V d = normalize(target + 0.9 * V{n01(rng), 0.5 * n01(rng), n01(rng)} - o_ray);
        const auto h = trace(o_ray, d);
        if (!h) continue;
        const V c = shade(*h, o.surface_detail);
        pc.points.push_back({float(h->p.x), float(h->p.y), float(h->p.z)});
        pc.colours.push_back({std::uint8_t(std::clamp(c.x, 0.0, 1.0) * 255),
                              std::uint8_t(std::clamp(c.y, 0.0, 1.0) * 255),
                              std::uint8_t(std::clamp(c.z, 0.0, 1.0) * 255)});
    }
    write_point_cloud_ply((fs::path(dir) / "points3D.ply").string(), pc);
}

}  // namespace radiant
