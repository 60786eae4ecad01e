// The live viewer's protocol and hub (issue 21): what a client may send, what is refused, how requests and
// frames pass between the server threads and the render loop.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "radiant/live/live_hub.hpp"
#include "radiant/live/protocol.hpp"

namespace radiant::live {
namespace {

std::string view_message(const std::string& camera_extra = "", const std::string& extra = "") {
    return R"({"type": "view", "id": 7, "layer": "depth", "quality": 70)" + extra +
           R"(, "camera": {"width": 640, "height": 480, "fx": 500, "fy": 500, "cx": 320, "cy": 240,
               "R": [1, 0, 0, 0, 0, -1, 0, 1, 0], "t": [0.5, -1, 4])" +
           camera_extra + "}}";
}

std::string refusal(const std::string& text) {
    try {
        parse_client_message(text);
    } catch (const ProtocolError& e) {
        return e.what();
    }
    return "";
}

TEST(LiveProtocol, ParsesViewsAndControls) {
    const ClientMessage m = parse_client_message(view_message());
    const auto* v = std::get_if<ViewRequest>(&m);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->id, 7u);
    EXPECT_EQ(v->layer, Layer::depth);
    EXPECT_EQ(v->quality, 70);
    EXPECT_EQ(v->camera.width, 640);
    EXPECT_EQ(v->camera.height, 480);
    EXPECT_DOUBLE_EQ(v->camera.R.m[1][2], -1.0);
    EXPECT_DOUBLE_EQ(v->camera.t.z, 4.0);
    EXPECT_NO_THROW(validate(v->camera, "view"));
    // A rotation sent in floats (off by 6e-4, more than the renderer's 1e-4) comes back orthonormal.
    const ClientMessage f = parse_client_message(
        R"({"type": "view", "id": 1, "camera": {"width": 64, "height": 48, "fx": 50, "fy": 50, "cx": 32,
            "cy": 24, "R": [1.0003, 0, 0, 0, 0.9997, 0, 0, 0, 1], "t": [0, 0, 0]}})");
    EXPECT_NO_THROW(validate(std::get<ViewRequest>(f).camera, "float view"));
    for (const char* a : {"pause", "resume", "checkpoint", "stop"}) {
        const ClientMessage c =
            parse_client_message(std::string(R"({"type":"control","action":")") + a + "\"}");
        ASSERT_TRUE(std::holds_alternative<Control>(c));
        EXPECT_STREQ(to_string(std::get<Control>(c)), a);
    }
}

// Larger than 4096 on a side: the same view with fewer pixels, never a huge allocation.
TEST(LiveProtocol, OversizedFramesAreScaledDown) {
    std::string m = view_message();
    m.replace(m.find("\"width\": 640"), 12, "\"width\": 64000");
    m.replace(m.find("\"fx\": 500"), 9, "\"fx\": 50000");
    m.replace(m.find("\"cx\": 320"), 9, "\"cx\": 32000");
    const ViewRequest v = std::get<ViewRequest>(parse_client_message(m));
    EXPECT_EQ(v.camera.width, kMaxFrameSide);
    EXPECT_EQ(v.camera.height, 31);  // 480 × 4096 / 64000 = 30.7
    EXPECT_NEAR(v.camera.fx, 50000.0 * kMaxFrameSide / 64000, 1e-9);
    EXPECT_NEAR(v.camera.cx, 32000.0 * kMaxFrameSide / 64000, 1e-9);
    const ViewRequest q =
        std::get<ViewRequest>(parse_client_message(view_message("", R"(, "quality": 1e300)")));
    EXPECT_EQ(q.quality, 100);
}

TEST(LiveProtocol, MalformedMessagesAreRefusedWithTheReason) {
    EXPECT_NE(refusal("not json").find("not JSON"), std::string::npos);
    EXPECT_NE(refusal("[1, 2]").find("type"), std::string::npos);
    EXPECT_NE(refusal(R"({"type": "shell", "cmd": "rm"})").find("unknown type"), std::string::npos);
    EXPECT_NE(refusal(R"({"type": "control", "action": "format_disk"})").find("unknown action"),
              std::string::npos);
    EXPECT_NE(refusal(std::string(kMaxMessageBytes + 1, ' ')).find("more than"), std::string::npos);
    std::string m = view_message();
    EXPECT_NE(refusal(m.replace(m.find("\"fx\": 500"), 9, "\"fx\": -50")).find("fx"), std::string::npos);
    m = view_message();
    EXPECT_NE(refusal(m.replace(m.find("[1, 0, 0, 0, 0, -1"), 18, "[2, 0, 0, 0, 0, -1")).find("rotation"),
              std::string::npos);
    // A mirror passes R·Rᵀ = I but is no camera (fuzz_viewer_message found one getting through).
    m = view_message();
    EXPECT_NE(refusal(m.replace(m.find("[1, 0, 0, 0, 0, -1"), 18, "[-1, 0, 0, 0, 0, -1")).find("reflection"),
              std::string::npos);
    m = view_message();
    EXPECT_NE(refusal(m.replace(m.find("\"t\": [0.5, -1, 4]"), 17, "\"t\": [0.5, -1]")).find("'t'"),
              std::string::npos);
    EXPECT_NE(refusal(view_message("", R"(, "layer": "normals")")).find("layer"), std::string::npos);
    EXPECT_NE(refusal(R"({"type": "view", "id": -1, "camera": {}})").find("id"), std::string::npos);
    EXPECT_FALSE(refusal(R"({"type": "view", "id": 1, "camera": {"width": 1e400}})").empty());
    EXPECT_NE(refusal(R"({"type": "view", "id": 1, "camera": {"width": 4, "height": 4, "fx": 1, "fy": 1,
        "cx": 0, "cy": 0, "R": [1, 0, 0, 0, 1, 0, 0, 0, 1], "t": [0, 0, "a"]}})")
                  .find("'t'"),
              std::string::npos);
}

TEST(LiveProtocol, FrameHeaderIsLittleEndianIdStepAndRenderTime) {
    const std::string h = frame_header(0x01020304u, 0xa0b0c0d0u, 0x00000102u);
    ASSERT_EQ(h.size(), 12u);
    EXPECT_EQ(std::uint8_t(h[8]), 0x02);
    EXPECT_EQ(std::uint8_t(h[9]), 0x01);
    EXPECT_EQ(std::uint8_t(h[0]), 0x04);
    EXPECT_EQ(std::uint8_t(h[3]), 0x01);
    EXPECT_EQ(std::uint8_t(h[4]), 0xd0);
    EXPECT_EQ(std::uint8_t(h[7]), 0xa0);
}

// One pending view per client (the newest), controls in order, a refused message dropped; a view put back
// never overrides a newer one; frames reach the sender.
TEST(LiveHub, KeepsTheNewestViewPerClientAndDropsRefusals) {
    LiveHub hub;
    const int a = hub.connect(), b = hub.connect();
    EXPECT_TRUE(hub.receive(a, view_message()));
    std::string newer = view_message();
    newer.replace(newer.find("\"id\": 7"), 7, "\"id\": 8");
    EXPECT_TRUE(hub.receive(a, newer));
    EXPECT_TRUE(hub.receive(b, view_message()));
    EXPECT_FALSE(hub.receive(b, "garbage"));
    EXPECT_TRUE(hub.receive(b, R"({"type":"control","action":"pause"})"));
    auto views = hub.take_views();
    ASSERT_EQ(views.size(), 2u);
    EXPECT_EQ(views[0].first, a);
    EXPECT_EQ(views[0].second.id, 8u);
    EXPECT_TRUE(hub.take_views().empty());
    const std::vector<Control> controls = hub.take_controls();
    ASSERT_EQ(controls.size(), 1u);
    EXPECT_EQ(controls[0], Control::pause);
    // Put back behind a newer request: the newer one stays.
    EXPECT_TRUE(hub.receive(a, view_message()));
    hub.put_back(a, views[0].second);
    views = hub.take_views();
    ASSERT_EQ(views.size(), 1u);
    EXPECT_EQ(views[0].second.id, 7u);
    // A client gone: its requests with it.
    EXPECT_TRUE(hub.receive(b, view_message()));
    hub.disconnect(b);
    EXPECT_TRUE(hub.take_views().empty());
    EXPECT_FALSE(hub.receive(b, view_message()));
    Frame f;
    f.client = a;
    f.id = 3;
    hub.post_frame(f);
    const std::vector<Frame> frames = hub.take_frames(std::chrono::milliseconds(0));
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0].id, 3u);
}

// The cameras come once the dataset is open, after pages may have connected: each new hello is a new
// version for the sender to pass on.
TEST(LiveHub, ANewHelloIsANewVersion) {
    LiveHub hub;
    const std::size_t v0 = hub.hello_version();
    hub.set_hello(R"({"type":"hello","mode":"train"})");
    EXPECT_NE(hub.hello_version(), v0);
    EXPECT_EQ(hub.hello(), R"({"type":"hello","mode":"train"})");
}

TEST(LiveHub, WaitingEndsWhenARequestArrives) {
    LiveHub hub;
    const int a = hub.connect();
    std::thread client([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        hub.receive(a, R"({"type":"control","action":"resume"})");
    });
    const auto t0 = std::chrono::steady_clock::now();
    hub.wait_for_requests(std::chrono::seconds(10));
    client.join();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
    EXPECT_EQ(hub.take_controls().size(), 1u);
}

TEST(LiveHub, RenderBudgetIsAShareOfWallTime) {
    RenderBudget budget(0.1, 0.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(budget.allows());  // nothing spent
    budget.spend(0.05);            // 50 ms in 100 ms of wall time: over a tenth
    EXPECT_FALSE(budget.allows());
}

}  // namespace
}  // namespace radiant::live
