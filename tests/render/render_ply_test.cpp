// A PLY as another 3DGS tool writes it, made byte by byte from DESIGN.md §3 (not with our writer), renders
// the colour that the Inria 3DGS SH formula gives for it.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "radiant/io/file.hpp"
#include "radiant/io/ply.hpp"
#include "radiant/render/cpu/render_cpu.hpp"

namespace radiant {
namespace {

// Inria 3DGS's eval_sh written out for one direction; sh[k][c] with k the coefficient, c the channel.
double inria_eval(const double sh[16][3], int c, double x, double y, double z) {
    const double C0 = 0.28209479177387814, C1 = 0.4886025119029199;
    const double C2[] = {1.0925484305920792, -1.0925484305920792, 0.31539156525252005, -1.0925484305920792,
                         0.5462742152960396};
    const double C3[] = {-0.5900435899266435, 2.890611442640554, -0.4570457994644658, 0.3731763325901154,
                         -0.4570457994644658, 1.445305721320277, -0.5900435899266435};
    double r = C0 * sh[0][c];
    r = r - C1 * y * sh[1][c] + C1 * z * sh[2][c] - C1 * x * sh[3][c];
    double xx = x * x, yy = y * y, zz = z * z, xy = x * y, yz = y * z, xz = x * z;
    r = r + C2[0] * xy * sh[4][c] + C2[1] * yz * sh[5][c] + C2[2] * (2 * zz - xx - yy) * sh[6][c] +
        C2[3] * xz * sh[7][c] + C2[4] * (xx - yy) * sh[8][c];
    r = r + C3[0] * y * (3 * xx - yy) * sh[9][c] + C3[1] * xy * z * sh[10][c] +
        C3[2] * y * (4 * zz - xx - yy) * sh[11][c] + C3[3] * z * (2 * zz - 3 * xx - 3 * yy) * sh[12][c] +
        C3[4] * x * (4 * zz - xx - yy) * sh[13][c] + C3[5] * z * (xx - yy) * sh[14][c] +
        C3[6] * x * (xx - 3 * yy) * sh[15][c];
    return std::max(0.0, r + 0.5);
}

TEST(RenderPly, HandWrittenDegree3FileRendersTheExpectedColour) {
    // Three Gaussians in front of an identity camera, at different view directions.
    const double pos[3][3] = {{0.0, 0.0, 4.0}, {1.2, -0.6, 4.0}, {-1.0, 0.8, 3.0}};
    double sh[3][16][3];
    for (int g = 0; g < 3; ++g)
        for (int k = 0; k < 16; ++k)
            for (int c = 0; c < 3; ++c)
                sh[g][k][c] = 0.05 * std::sin(1.7 * k + 2.3 * c + 0.9 * g) + (k == 0 ? 0.3 : 0);

    std::string bytes =
        "ply\nformat binary_little_endian 1.0\ncomment written by hand, as gsplat/Inria do\nelement vertex "
        "3\n"
        "property float x\nproperty float y\nproperty float z\nproperty float nx\nproperty float ny\n"
        "property float nz\n";
    for (int i = 0; i < 3; ++i) bytes += "property float f_dc_" + std::to_string(i) + "\n";
    for (int i = 0; i < 45; ++i) bytes += "property float f_rest_" + std::to_string(i) + "\n";
    bytes += "property float opacity\n";
    for (int i = 0; i < 3; ++i) bytes += "property float scale_" + std::to_string(i) + "\n";
    for (int i = 0; i < 4; ++i) bytes += "property float rot_" + std::to_string(i) + "\n";
    bytes += "end_header\n";
    auto put = [&](double v) {
        float f = float(v);
        bytes.append(reinterpret_cast<const char*>(&f), 4);
    };
    for (int g = 0; g < 3; ++g) {
        for (int k = 0; k < 3; ++k) put(pos[g][k]);
        for (int k = 0; k < 3; ++k) put(0.0);  // normals
        for (int c = 0; c < 3; ++c) put(sh[g][0][c]);
        for (int c = 0; c < 3; ++c)  // f_rest channel-major: all R, then G, then B
            for (int k = 1; k < 16; ++k) put(sh[g][k][c]);
        put(8.0);  // opacity logit: sigmoid ≈ 0.9997 → α clamps at 0.99
        for (int k = 0; k < 3; ++k) put(std::log(0.25));
        put(1.0);  // rot w, x, y, z
        put(0.0);
        put(0.0);
        put(0.0);
    }
    const auto dir =
        std::filesystem::temp_directory_path() / ("radiant_render_ply_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "third_party.ply").string();
    write_file_atomic(path, bytes);

    const Scene scene = read_ply(path);
    ASSERT_EQ(scene.sh_degree, 3);
    Camera cam;
    cam.width = 200;
    cam.height = 160;
    cam.fx = cam.fy = 150;
    cam.cx = 100;
    cam.cy = 80;
    RenderSettings s;
    s.background = {0.1, 0.2, 0.3};
    const ForwardResult<float> f = cpu::render_forward(scene, cam, s);
    for (int g = 0; g < 3; ++g) {
        const double n = std::sqrt(pos[g][0] * pos[g][0] + pos[g][1] * pos[g][1] + pos[g][2] * pos[g][2]);
        const double x = pos[g][0] / n, y = pos[g][1] / n, z = pos[g][2] / n;
        const double u = 150 * pos[g][0] / pos[g][2] + 100, v = 150 * pos[g][1] / pos[g][2] + 80;
        const int px = int(std::floor(u)), py = int(std::floor(v));
        // At the pixel nearest the centre, α is 0.99 (the Gaussians are ~10 px wide and do not overlap).
        for (int c = 0; c < 3; ++c) {
            const double expect = 0.99 * inria_eval(sh[g], c, x, y, z) + 0.01 * s.background[std::size_t(c)];
            EXPECT_NEAR(f.rgb.at(px, py, c), expect, 2e-3) << "gaussian " << g << " channel " << c;
        }
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace radiant
