#include "radiant/io/camera_json.hpp"

#include <gtest/gtest.h>

#include "radiant/core/error.hpp"

namespace radiant {
namespace {

TEST(CameraJson, RoundTripsAList) {
    std::vector<Camera> cams = orbit({0, 0, 0}, 3, 20, 3, {0, -1, 0}, 50, 320, 200);
    cams[1].model = CameraModel::opencv;
    cams[1].distortion = {0.1, -0.02, 0.001, 0.002};
    auto back = parse_cameras_json(format_cameras_json(cams), "cams.json");
    ASSERT_EQ(back.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(back[i].name, cams[i].name);
        EXPECT_EQ(back[i].width, 320);
        EXPECT_DOUBLE_EQ(back[i].fx, cams[i].fx);
        for (int r = 0; r < 3; ++r) {
            EXPECT_DOUBLE_EQ(back[i].t[r], cams[i].t[r]);
            for (int c = 0; c < 3; ++c) EXPECT_DOUBLE_EQ(back[i].R.m[r][c], cams[i].R.m[r][c]);
        }
    }
    EXPECT_EQ(back[1].model, CameraModel::opencv);
    EXPECT_EQ(back[1].distortion, cams[1].distortion);
}

// A run's cameras.json says which views trained and which were held out (radiant render --views).
TEST(CameraJson, SplitsRoundTrip) {
    const std::vector<Camera> cams = orbit({0, 0, 0}, 3, 20, 3, {0, -1, 0}, 50, 32, 20);
    std::vector<std::string> splits;
    parse_cameras_json(format_cameras_json(cams, {"train", "test"}), "cams.json", &splits);
    EXPECT_EQ(splits, (std::vector<std::string>{"train", "test", ""}));
    EXPECT_THROW(parse_cameras_json(R"({"width": 4, "height": 4, "fx": 1, "fy": 1, "cx": 2, "cy": 2,
        "R": [[1,0,0],[0,1,0],[0,0,1]], "t": [0,0,0], "split": 3})",
                                    "c.json", &splits),
                 IoError);
}

TEST(CameraJson, SingleObject) {
    auto cams = parse_cameras_json(
        R"({"width": 64, "height": 48, "fx": 50, "fy": 50, "cx": 32, "cy": 24,
            "R": [[1,0,0],[0,1,0],[0,0,1]], "t": [0, 0, 4]})",
        "one.json");
    ASSERT_EQ(cams.size(), 1u);
    EXPECT_EQ(cams[0].model, CameraModel::pinhole);
    EXPECT_DOUBLE_EQ(cams[0].t.z, 4);
}

TEST(CameraJson, BadInputNamesFileAndField) {
    const std::string base = R"("width": 64, "height": 48, "fx": 50, "fy": 50, "cx": 32, "cy": 24)";
    struct Case {
        std::string text, expect;
    } cases[] = {
        {"{", "invalid JSON"},
        // A number past double's range is nlohmann's out_of_range, not parse_error (a fuzz finding).
        {R"({"width": 777e7777})", "invalid JSON"},
        {"{" + base + R"(, "t": [0,0,1]})", "'R'"},
        {"{" + base + R"(, "R": [[1,0,0],[0,1,0]], "t": [0,0,1]})", "'R'"},
        {"{" + base + R"(, "R": [[1,0,0],[0,1,0],[0,0,1]], "t": [0,0]})", "'t'"},
        {"{" + base + R"(, "R": [[2,0,0],[0,1,0],[0,0,1]], "t": [0,0,1]})", "orthonormal"},
        {"{" + base + R"(, "R": [[1,0,0],[0,1,0],[0,0,1]], "t": [0,0,1], "model": "kb8"})", "unknown model"},
        {R"({"width": 64.5, "height": 48, "fx": 50, "fy": 50, "cx": 32, "cy": 24})", "integer"},
        {R"({"cameras": [{"width": "wide"}]})", "camera 0"},
        {R"({"cameras": []})", "no cameras"},
    };
    for (const Case& c : cases) {
        try {
            parse_cameras_json(c.text, "cams.json");
            ADD_FAILURE() << c.text;
        } catch (const IoError& e) {
            EXPECT_NE(std::string(e.what()).find("cams.json"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace radiant
