#include "radiant/io/ply.hpp"

#include <gtest/gtest.h>

#include <unistd.h>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "radiant/core/error.hpp"
#include "radiant/io/file.hpp"
#include "support/random_scene.hpp"

namespace radiant {
namespace {

namespace fs = std::filesystem;

void expect_bit_equal(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (std::size_t i = 0; i < a.size(); ++i)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(a[i]), std::bit_cast<std::uint32_t>(b[i]))
            << what << "[" << i << "]";
}

void expect_scene_bit_equal(const Scene& a, const Scene& b) {
    ASSERT_EQ(a.sh_degree, b.sh_degree);
    expect_bit_equal(a.means, b.means, "means");
    expect_bit_equal(a.log_scales, b.log_scales, "log_scales");
    expect_bit_equal(a.quats, b.quats, "quats");
    expect_bit_equal(a.opacity_logits, b.opacity_logits, "opacity_logits");
    expect_bit_equal(a.sh, b.sh, "sh");
}

struct Variant {
    PlyFormat format;
    int degree;
    bool normals;
};

class PlyRoundTrip : public ::testing::TestWithParam<Variant> {};

TEST_P(PlyRoundTrip, IsBitExact) {
    const Variant v = GetParam();
    test::RandomSceneOptions o;
    o.count = 57;
    o.sh_degree = v.degree;
    Scene s = test::random_scene(100 + std::uint32_t(v.degree), o);
    s.means[0] = 1e-38f;  // subnormal-adjacent and extreme values survive ascii too
    s.means[1] = -3.4e38f;
    s.log_scales[0] = 0.1f;
    const std::string bytes = format_ply(s, {v.format, v.normals});
    const Scene back = parse_ply(bytes, "mem.ply");
    expect_scene_bit_equal(s, back);
    EXPECT_EQ(format_ply(back, {v.format, v.normals}), bytes);  // and writing again gives the same bytes
}

std::vector<Variant> all_variants() {
    std::vector<Variant> v;
    for (PlyFormat f : {PlyFormat::ascii, PlyFormat::binary_little_endian, PlyFormat::binary_big_endian})
        for (int d = 0; d <= 3; ++d)
            for (bool n : {false, true}) v.push_back({f, d, n});
    return v;
}
INSTANTIATE_TEST_SUITE_P(AllVariants, PlyRoundTrip, ::testing::ValuesIn(all_variants()),
                         [](const auto& info) {
                             const Variant& v = info.param;
                             const char* f = v.format == PlyFormat::ascii                  ? "ascii"
                                             : v.format == PlyFormat::binary_little_endian ? "le"
                                                                                           : "be";
                             return std::string(f) + "_sh" + std::to_string(v.degree) +
                                    (v.normals ? "_normals" : "");
                         });

TEST(Ply, ReadsByPropertyNameInAnyOrderAndIgnoresExtras) {
    const std::string text =
        "ply\nformat ascii 1.0\ncomment made by hand\nelement vertex 2\n"
        "property float rot_3\nproperty float opacity\nproperty uchar red\nproperty float z\nproperty float "
        "y\n"
        "property float x\nproperty double scale_0\nproperty float scale_1\nproperty float scale_2\n"
        "property float f_dc_2\nproperty float f_dc_1\nproperty float f_dc_0\nproperty float rot_0\n"
        "property float rot_1\nproperty float rot_2\nelement face 0\nproperty list uchar int vertex_indices\n"
        "end_header\n"
        "0.5 -1 200 3 2 1 -4 -5 -6 0.3 0.2 0.1 1 0 0\n"
        "0 2 7 6 5 4 -1 -2 -3 0 0 0 0 1 0\n";
    Scene s = parse_ply(text, "hand.ply");
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s.sh_degree, 0);
    EXPECT_FLOAT_EQ(s.means[0], 1);
    EXPECT_FLOAT_EQ(s.means[1], 2);
    EXPECT_FLOAT_EQ(s.means[2], 3);
    EXPECT_FLOAT_EQ(s.log_scales[0], -4);
    EXPECT_FLOAT_EQ(s.quats[0], 1);
    EXPECT_FLOAT_EQ(s.quats[3], 0.5f);
    EXPECT_FLOAT_EQ(s.opacity_logits[0], -1);
    EXPECT_FLOAT_EQ(s.sh[0], 0.1f);
    EXPECT_FLOAT_EQ(s.sh[2], 0.3f);
}

TEST(Ply, FRestIsChannelMajor) {
    test::RandomSceneOptions o;
    o.count = 1;
    o.sh_degree = 2;
    Scene s = test::random_scene(1, o);
    const std::string bytes = format_ply(s, {PlyFormat::ascii, false});
    // ascii record: x y z f_dc_0..2 f_rest_0..23 ...; f_rest_j = channel (j / 8), coefficient 1 + j % 8
    const std::string body = bytes.substr(bytes.find("end_header\n") + 11);
    std::istringstream in(body);
    std::vector<float> rec;
    float f;
    while (in >> f) rec.push_back(f);
    ASSERT_EQ(rec.size(), 3u + 3 + 24 + 1 + 3 + 4);
    for (int j = 0; j < 24; ++j) {
        int channel = j / 8, k = 1 + j % 8;
        EXPECT_EQ(rec[std::size_t(6 + j)], s.sh[std::size_t(3 * k + channel)]) << j;
    }
}

// Malformed files: each gives an IoError that names the file; none crashes.
struct BadCase {
    const char* label;
    std::string bytes;
    const char* expect;  // a fragment of the message
};

std::string good_header(int n, const char* format = "binary_little_endian", const char* x_type = "float") {
    std::string h = std::string("ply\nformat ") + format + " 1.0\nelement vertex " + std::to_string(n) + "\n";
    h += std::string("property ") + x_type + " x\n";
    for (const char* p : {"y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0", "scale_1", "scale_2",
                          "rot_0", "rot_1", "rot_2", "rot_3"})
        h += std::string("property float ") + p + "\n";
    return h + "end_header\n";
}

std::string record(float x, float rot0 = 1.0f) {
    float v[14] = {x, 0, 0, 0, 0, 0, 0, -1, -1, -1, rot0, 0, 0, 0};
    return std::string(reinterpret_cast<const char*>(v), sizeof v);
}

std::vector<BadCase> bad_cases() {
    std::vector<BadCase> c;
    c.push_back({"empty", "", "not a PLY"});
    c.push_back({"not ply", "hello\n", "not a PLY"});
    c.push_back({"no end_header", "ply\nformat ascii 1.0\nelement vertex 1\n", "end_header"});
    c.push_back({"bad format", "ply\nformat binary_middle_endian 1.0\nend_header\n", "unknown format"});
    c.push_back({"bad version", "ply\nformat ascii 2.0\nend_header\n", "version"});
    c.push_back({"bad keyword", "ply\nformat ascii 1.0\nelephant\nend_header\n", "unknown keyword"});
    c.push_back({"bad count", "ply\nformat ascii 1.0\nelement vertex -3\nend_header\n", "count"});
    c.push_back(
        {"bad type", "ply\nformat ascii 1.0\nelement vertex 1\nproperty flot x\nend_header\n", "type"});
    c.push_back({"no vertex", "ply\nformat ascii 1.0\nelement face 0\nend_header\n", "no 'vertex'"});
    c.push_back({"missing property",
                 "ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nend_header\n", "no 'y'"});
    c.push_back({"wrong type", good_header(1, "binary_little_endian", "uchar") + std::string(53, '\0'),
                 "must be float or double"});
    c.push_back(
        {"truncated binary", good_header(3) + record(1) + record(2) + record(3).substr(0, 20), "truncated"});
    c.push_back({"huge count", good_header(2000000000) + record(1), "truncated"});
    c.push_back({"nan", good_header(2) + record(1) + record(std::nanf("")), "vertex 1"});
    c.push_back({"inf", good_header(1) + record(INFINITY), "is inf"});
    c.push_back({"zero quaternion", good_header(1) + record(1, 0.0f), "quaternion"});
    std::string rest7 = good_header(1);
    std::string props;
    for (int i = 0; i < 7; ++i) props += "property float f_rest_" + std::to_string(i) + "\n";
    rest7.insert(rest7.find("end_header"), props);
    c.push_back({"f_rest count", rest7 + record(1) + std::string(28, '\0'), "f_rest"});
    std::string ascii = good_header(2, "ascii");
    c.push_back({"ascii truncated", ascii + "1 0 0 0 0 0 0 -1 -1 -1 1 0 0 0\n", "truncated"});
    c.push_back({"ascii short line",
                 ascii + "1 0 0 0 0 0 0 -1 -1 -1 1 0 0 0\n100000000000000000000000000 2 3\n",
                 "has 3 values"});
    c.push_back({"ascii garbage", ascii + "1 0 0 0 0 0 0 -1 -1 -1 1 0 0 0\n1 0 0 0 0 0 0 -1 -1 -1 1 0 0 zz\n",
                 "not a number"});
    c.push_back({"vertex list",
                 "ply\nformat ascii 1.0\nelement vertex 1\nproperty list uchar float x\nend_header\n",
                 "list"});
    return c;
}

TEST(Ply, MalformedFilesGiveErrorsNamingTheFile) {
    for (const BadCase& b : bad_cases()) {
        try {
            parse_ply(b.bytes, "bad.ply");
            ADD_FAILURE() << b.label << ": no error";
        } catch (const IoError& e) {
            const std::string msg = e.what();
            EXPECT_EQ(msg.rfind("bad.ply: ", 0), 0u) << b.label << ": " << msg;
            EXPECT_NE(msg.find(b.expect), std::string::npos) << b.label << ": " << msg;
        }
    }
}

TEST(Ply, EveryTruncationOfAValidFileIsAnErrorOrAPrefix) {
    test::RandomSceneOptions o;
    o.count = 3;
    o.sh_degree = 1;
    const Scene s = test::random_scene(4, o);
    for (PlyFormat f : {PlyFormat::ascii, PlyFormat::binary_big_endian}) {
        const std::string bytes = format_ply(s, {f, true});
        for (std::size_t n = 0; n < bytes.size(); ++n) {
            try {
                Scene r = parse_ply(std::string_view(bytes).substr(0, n), "cut.ply");
                // ascii cut inside the last number still parses to a (different) valid scene; never more
                // vertices
                EXPECT_EQ(r.size(), s.size());
                EXPECT_EQ(f, PlyFormat::ascii);
            } catch (const IoError&) {
            }
        }
    }
}

TEST(Ply, WriteIsAtomic) {
    const fs::path dir = fs::temp_directory_path() / ("radiant_ply_test_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string path = (dir / "scene.ply").string();
    Scene s = test::random_scene(2);
    write_ply(path, s);
    const std::string before = read_file(path);
    // A scene that fails validation is rejected before anything is written: the old file is intact.
    Scene bad = s;
    bad.means[4] = NAN;
    EXPECT_THROW(write_ply(path, bad), Error);
    EXPECT_EQ(read_file(path), before);
    // A writer that fails halfway leaves neither a partial file nor a temporary behind.
    EXPECT_THROW(write_file_atomic((dir / "other.ply").string(),
                                   [](std::ostream& out) {
                                       out << "ply\nformat";
                                       throw Error("disk on fire");
                                   }),
                 Error);
    EXPECT_FALSE(fs::exists(dir / "other.ply"));
    int files = 0;
    for (auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
    EXPECT_EQ(files, 1);
    EXPECT_THROW(write_ply((dir / "no_such_dir" / "x.ply").string(), s), IoError);
    fs::remove_all(dir);
}

TEST(Ply, MissingFileIsAnIoError) {
    EXPECT_THROW(read_ply("/nonexistent/scene.ply"), IoError);
}

}  // namespace
}  // namespace radiant
