#pragma once
// The pose-recovery check of issue 22 item 2, shared by the CPU test (tests/train/pose_recovery_test.cpp)
// and the GPU one at the full target (tests/gpu/pose_recovery_gpu_test.cpp): a dataset's training
// poses jittered, and refined cameras compared with the true ones after the similarity that best aligns
// their centres (a scene trained with its cameras may sit anywhere, turned and scaled).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "radiant/core/camera_grad.hpp"
#include "radiant/io/dataset.hpp"
#include "radiant/io/file.hpp"
#include "support/similarity.hpp"

namespace radiant::test {

// Each training frame's camera turned by `degrees` about a random axis through its centre and moved by
// `fraction` of `extent` in a random direction (transforms_train.json: camera-to-world matrices).
inline void jitter_poses(const std::filesystem::path& from, const std::filesystem::path& to, double degrees,
                         double fraction, double extent) {
    std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
    nlohmann::json j = nlohmann::json::parse(read_file((from / "transforms_train.json").string()));
    std::mt19937 rng(11);
    std::normal_distribution<double> n(0.0, 1.0);
    auto direction = [&] {
        const Vec3<double> v{n(rng), n(rng), n(rng)};
        return (1.0 / std::sqrt(dot(v, v))) * v;
    };
    for (auto& frame : j["frames"]) {
        auto& m = frame["transform_matrix"];
        Mat3<double> r;
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) r.m[a][b] = m[a][b].get<double>();
        r = so3_exp(degrees * 3.14159265358979323846 / 180.0 * direction()) * r;
        const Vec3<double> shift = fraction * extent * direction();
        for (int a = 0; a < 3; ++a) {
            for (int b = 0; b < 3; ++b) m[a][b] = r.m[a][b];
            m[a][3] = m[a][3].get<double>() + shift[a];
        }
    }
    write_file_atomic((to / "transforms_train.json").string(), j.dump(1));
}

struct PoseError {
    double rot_mean = 0, rot_max = 0, centre_mean = 0, centre_max = 0;  // degrees; fraction of the extent
};

// Training cameras of `cameras` against the dataset's true ones, after the best similarity.
inline PoseError pose_error(const std::vector<Camera>& cameras, const Dataset& truth) {
    std::vector<Vec3<double>> from, to;
    std::vector<Mat3<double>> r_from, r_to;
    for (const Camera& c : cameras)
        for (const DatasetView& v : truth.views)
            if (!v.test && v.name == c.name) {
                from.push_back(c.centre());
                to.push_back(v.camera.centre());
                r_from.push_back(c.R);
                r_to.push_back(v.camera.R);
            }
    EXPECT_GT(from.size(), 0u);
    const Similarity a = align_points(from, to);
    PoseError e;
    for (std::size_t i = 0; i < from.size(); ++i) {
        const Mat3<double> d = r_from[i] * transpose(a.Q) * transpose(r_to[i]);
        const double cos_angle = std::clamp((d.m[0][0] + d.m[1][1] + d.m[2][2] - 1) / 2, -1.0, 1.0);
        const double deg = std::acos(cos_angle) * 180.0 / 3.14159265358979323846;
        const Vec3<double> r = a(from[i]) - to[i];
        const double c = std::sqrt(dot(r, r)) / truth.extent;
        e.rot_mean += deg / double(from.size());
        e.centre_mean += c / double(from.size());
        e.rot_max = std::max(e.rot_max, deg);
        e.centre_max = std::max(e.centre_max, c);
    }
    return e;
}

}  // namespace radiant::test
