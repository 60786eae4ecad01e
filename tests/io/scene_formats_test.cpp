// The shared scene formats (issue 10): every format round-trips within its quantisation, the layouts are
// the specified ones (hand-made bytes decode to known values), and damaged files are errors.
#include "radiant/io/scene_formats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "radiant/core/error.hpp"
#include "radiant/io/ply.hpp"
#include "support/random_scene.hpp"
#include "support/temp_dir.hpp"

namespace radiant {
namespace {

Scene sample(int degree, int count = 700) {
    test::RandomSceneOptions o;
    o.count = count;
    o.sh_degree = degree;
    o.spread = 3.0;
    return test::random_scene(11, o);
}

// |q1·q2| of the normalised quaternions (1: the same rotation).
double worst_rotation_agreement(const Scene& a, const Scene& b) {
    double worst = 1;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const Vec4<float> p = a.quat(i), q = b.quat(i);
        const double np = std::sqrt(double(dot(p, p))), nq = std::sqrt(double(dot(q, q)));
        worst = std::min(worst, std::abs(double(dot(p, q))) / (np * nq));
    }
    return worst;
}

TEST(SceneFormats, SplatRoundTripsWithinItsQuantisation) {
    const Scene s = sample(3);
    const std::string bytes = encode_splat(s);
    ASSERT_EQ(bytes.size(), 32 * s.size());
    const Scene back = decode_splat(bytes, "t.splat");
    ASSERT_EQ(back.size(), s.size());
    EXPECT_EQ(back.sh_degree, 0);  // DC only
    const QuantisationError e = quantisation_error(s, back);
    EXPECT_EQ(e.position, 0.0);
    EXPECT_LT(e.log_scale, 1e-5);
    EXPECT_LE(e.colour, 0.5 / 255 + 1e-6);
    EXPECT_LE(e.opacity, 0.5 / 255 + 1e-3);  // the logit of the 8-bit alpha, clamped off 0 and 1
    EXPECT_GT(worst_rotation_agreement(s, back), 0.995);
}

TEST(SceneFormats, SplatLayoutIsAntimatter15s) {
    std::string b;
    auto f32 = [&](float v) { b.append(reinterpret_cast<const char*>(&v), 4); };
    f32(1.5f), f32(-2.f), f32(0.25f);         // position
    f32(0.5f), f32(1.f), f32(2.f);            // linear scales
    b += std::string("\xff\x80\x00\xbf", 4);  // RGBA: colour 1, 0.502, 0; alpha 0.749
    b += std::string("\xff\x80\x80\x80", 4);  // w x y z = 1 0 0 0 (q·128 + 128)
    const Scene s = decode_splat(b, "hand.splat");
    ASSERT_EQ(s.size(), 1u);
    EXPECT_FLOAT_EQ(s.means[1], -2.f);
    EXPECT_NEAR(s.log_scales[0], std::log(0.5), 1e-6);
    EXPECT_NEAR(0.5 + kShC0 * s.sh[0], 1.0, 1e-6);
    EXPECT_NEAR(0.5 + kShC0 * s.sh[2], 0.0, 1e-6);
    EXPECT_NEAR(sigmoid(s.opacity_logits[0]), 191 / 255.0, 1e-6);
    EXPECT_NEAR(s.quats[0], 127 / 128.0, 1e-6);
    EXPECT_EQ(s.quats[1], 0.f);
    EXPECT_EQ(encode_splat(s).substr(12 * 2), b.substr(12 * 2));  // colour, alpha and rotation bytes back
}

TEST(SceneFormats, CompressedPlyRoundTripsWithinItsQuantisation) {
    for (int degree : {0, 1, 3}) {
        const Scene s = sample(degree);
        const Scene back = decode_compressed_ply(encode_compressed_ply(s), "t.compressed.ply");
        ASSERT_EQ(back.size(), s.size());
        EXPECT_EQ(back.sh_degree, degree);
        const QuantisationError e = quantisation_error(s, back);
        // positions on 11/10 bits of a chunk's extent (≤ 6 here), colours on 8 bits of their range
        EXPECT_LT(e.position, 6.0 / 1023) << degree;
        EXPECT_LT(e.colour, 1.0 / 255) << degree;
        EXPECT_LE(e.opacity, 0.5 / 255 + 1e-6) << degree;
        if (degree > 0) {
            EXPECT_LE(e.sh_rest, 8.0 / 256 + 1e-6) << degree;
        }
        EXPECT_GT(worst_rotation_agreement(s, back), 0.999) << degree;
    }
}

TEST(SceneFormats, SpzRoundTripsInEveryVersion) {
    for (int version : {2, 3, 4})
        for (int degree : {0, 1, 2, 3}) {
            const Scene s = sample(degree);
            const std::string bytes = encode_spz(s, version);
            EXPECT_EQ(bytes.substr(0, 4) == "NGSP", version == 4) << "v4 is plain, v2/v3 gzip";
            const Scene back = decode_spz(bytes, "t.spz");
            ASSERT_EQ(back.size(), s.size());
            EXPECT_EQ(back.sh_degree, degree);
            const QuantisationError e = quantisation_error(s, back);
            EXPECT_LE(e.position, 0.5 / 4096 + 1e-6) << version << " " << degree;  // 12 fractional bits
            EXPECT_LT(e.colour, kShC0 * 0.5 / 255 / 0.15 + 1e-6);
            EXPECT_LE(e.log_scale, 1.0 / 32 + 1e-6);
            EXPECT_LE(e.opacity, 0.5 / 255 + 1e-6);
            if (degree > 0) {
                EXPECT_LE(e.sh_rest, 9.0 / 128) << version << " " << degree;
            }  // 4-bit buckets above degree 1
            EXPECT_GT(worst_rotation_agreement(s, back), version == 2 ? 0.99 : 0.999) << version;
        }
}

TEST(SceneFormats, SpzHeaderAndTableOfContentsAreAsSpecified) {
    const Scene s = sample(1, 10);
    const std::string b = encode_spz(s, 4);
    std::uint32_t u32[5];
    std::memcpy(u32, b.data(), 12);
    EXPECT_EQ(u32[0], 0x5053474eu);  // "NGSP"
    EXPECT_EQ(u32[1], 4u);
    EXPECT_EQ(u32[2], 10u);
    EXPECT_EQ(b[12], 1);   // SH degree
    EXPECT_EQ(b[13], 12);  // fractional bits
    EXPECT_EQ(b[15], 6);   // streams: positions, alphas, colours, scales, rotations, SH
    std::uint32_t toc;
    std::memcpy(&toc, b.data() + 16, 4);
    EXPECT_EQ(toc, 32u);
    const std::uint64_t expected[6] = {90, 10, 30, 30, 40, 90};
    for (int k = 0; k < 6; ++k) {
        std::uint64_t raw;
        std::memcpy(&raw, b.data() + 32 + 16 * k + 8, 8);
        EXPECT_EQ(raw, expected[k]) << "stream " << k;
    }
}

TEST(SceneFormats, DamagedFilesAreErrorsNamingTheFile) {
    const Scene s = sample(2, 300);
    const std::string spz4 = encode_spz(s, 4), spz2 = encode_spz(s, 2), cply = encode_compressed_ply(s),
                      splat = encode_splat(s);
    auto expect_error = [](auto decode, const std::string& bytes, const char* what) {
        try {
            decode(bytes, "bad.file");
            ADD_FAILURE() << what << ": no error";
        } catch (const IoError& e) {
            EXPECT_NE(std::string(e.what()).find("bad.file"), std::string::npos) << e.what();
        }
    };
    for (std::size_t cut :
         {std::size_t(0), std::size_t(10), std::size_t(40), spz4.size() / 2, spz4.size() - 1})
        expect_error(decode_spz, spz4.substr(0, cut), "truncated spz v4");
    for (std::size_t cut : {std::size_t(5), spz2.size() / 2, spz2.size() - 1})
        expect_error(decode_spz, spz2.substr(0, cut), "truncated spz v2");
    std::string wrong = spz4;
    wrong[4] = 9;  // version 9
    expect_error(decode_spz, wrong, "spz version");
    for (std::size_t cut : {std::size_t(3), cply.size() / 2, cply.size() - 1})
        expect_error(decode_compressed_ply, cply.substr(0, cut), "truncated compressed ply");
    expect_error(decode_splat, splat.substr(0, 33), "partial splat");
}

// fuzz_scene_formats' first finding: a compressed PLY whose colour bounds are NaN decoded to NaN SH, which
// the SPZ writer then cast to uint8 (undefined). Decoders now refuse non-finite values; writers validate
// first.
TEST(SceneFormats, FuzzFindingNonFiniteBoundsIsAnError) {
    const std::string path =
        std::string(RADIANT_TEST_DATA) + "/fuzz_findings/compressed_ply_nan_bounds.compressed.ply";
    try {
        read_scene(path);
        ADD_FAILURE() << "no error";
    } catch (const IoError& e) {
        EXPECT_NE(std::string(e.what()).find("is not finite"), std::string::npos) << e.what();
    }
    Scene s = sample(1, 3);
    s.sh[4] = NAN;
    EXPECT_THROW(encode_spz(s), Error);
    EXPECT_THROW(encode_splat(s), Error);
    EXPECT_THROW(encode_compressed_ply(s), Error);
}

TEST(SceneFormats, ReadAndWriteByExtension) {
    test::TempDir dir;
    const Scene s = sample(3, 50);
    for (const char* name : {"a.ply", "a.compressed.ply", "a.splat", "a.spz"}) {
        const std::string path = (dir / name).string();
        write_scene(path, s);
        EXPECT_EQ(read_scene(path).size(), 50u) << name;
    }
    // SuperSplat's files named plain .ply are still read as compressed
    const std::string plain = (dir / "renamed.ply").string();
    std::filesystem::copy_file(dir / "a.compressed.ply", plain);
    EXPECT_EQ(read_scene(plain).sh_degree, 3);
    EXPECT_THROW(read_scene((dir / "a.obj").string()), IoError);
    EXPECT_THROW(scene_format_from_path("scene.ksplat"), IoError);
}

// Issue 19 item 4: a value a format cannot hold writes nothing and names the Gaussian; what a format clamps
// by design is counted.
TEST(SceneFormats, ValuesAFormatCannotHoldWriteNothing) {
    test::TempDir dir;
    Scene s = sample(1, 40);
    s.log_scales[3 * 17 + 1] = 100;  // e^100 overflows .splat's float32 scales
    const std::string splat = (dir / "a.splat").string();
    try {
        write_scene(splat, s);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("Gaussian 17: log-scale 100"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(splat));
    // SPZ and compressed PLY clamp log-scales by design: written, with the count.
    const FormatFit spz = write_scene((dir / "a.spz").string(), s);
    EXPECT_EQ(spz.clamped, 1u);
    EXPECT_NE(spz.what.find("[-10, 5.94]"), std::string::npos);
    EXPECT_EQ(write_scene((dir / "a.compressed.ply").string(), s).clamped, 1u);
    EXPECT_EQ(write_scene((dir / "a.ply").string(), s).clamped, 0u);
    // A position SPZ's fixed point cannot reach.
    s.log_scales[3 * 17 + 1] = 0;
    s.means[3 * 5] = 3000;
    const std::string far = (dir / "far.spz").string();
    EXPECT_THROW(write_scene(far, s), Error);
    EXPECT_FALSE(std::filesystem::exists(far));
}

}  // namespace
}  // namespace radiant
