#include "radiant/live/protocol.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

namespace radiant::live {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& why) {
    throw ProtocolError(why);
}

double number(const json& j, const char* key) {
    if (!j.contains(key) || !j[key].is_number()) fail(fmt::format("'{}' must be a number", key));
    const double v = j[key].get<double>();
    if (!std::isfinite(v)) fail(fmt::format("'{}' must be finite", key));
    return v;
}

Camera camera_of(const json& j) {
    if (!j.is_object()) fail("'camera' must be an object");
    Camera c;
    const double w = number(j, "width"), h = number(j, "height");
    if (!(w >= 1 && h >= 1 && w <= 1e6 && h <= 1e6)) fail("camera width and height must be 1..1e6");
    c.fx = number(j, "fx");
    c.fy = number(j, "fy");
    c.cx = number(j, "cx");
    c.cy = number(j, "cy");
    if (!(c.fx > 0 && c.fy > 0 && c.fx < 1e8 && c.fy < 1e8)) fail("fx and fy must be positive");
    if (std::abs(c.cx) > 1e7 || std::abs(c.cy) > 1e7) fail("cx, cy out of range");
    if (!j.contains("R") || !j["R"].is_array() || j["R"].size() != 9) fail("'R' must be 9 numbers");
    if (!j.contains("t") || !j["t"].is_array() || j["t"].size() != 3) fail("'t' must be 3 numbers");
    for (int i = 0; i < 9; ++i) {
        if (!j["R"][std::size_t(i)].is_number()) fail("'R' must be 9 numbers");
        c.R.m[i / 3][i % 3] = j["R"][std::size_t(i)].get<double>();
    }
    for (int i = 0; i < 3; ++i) {
        if (!j["t"][std::size_t(i)].is_number()) fail("'t' must be 3 numbers");
        c.t[i] = j["t"][std::size_t(i)].get<double>();
        if (!std::isfinite(c.t[i]) || std::abs(c.t[i]) > 1e9) fail("'t' out of range");
    }
    // A rotation, to the page's float precision.
    const Mat3<double> should_be_identity = c.R * transpose(c.R);
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k)
            if (!(std::abs(should_be_identity.m[r][k] - (r == k ? 1.0 : 0.0)) < 1e-3))
                fail("'R' is not a rotation");
    // The page sends floats: make R orthonormal to double precision (Gram–Schmidt on its rows), so the
    // renderer's own check (1e-4) holds; a mirror is no camera.
    Vec3<double> r0{c.R.m[0][0], c.R.m[0][1], c.R.m[0][2]}, r1{c.R.m[1][0], c.R.m[1][1], c.R.m[1][2]},
        r2{c.R.m[2][0], c.R.m[2][1], c.R.m[2][2]};
    if (!(dot(cross(r0, r1), r2) > 0)) fail("'R' is a reflection (determinant -1), not a rotation");
    r0 = normalize(r0);
    r1 = normalize(r1 - dot(r0, r1) * r0);
    r2 = cross(r0, r1);
    for (int k = 0; k < 3; ++k) {
        c.R.m[0][k] = r0[k];
        c.R.m[1][k] = r1[k];
        c.R.m[2][k] = r2[k];
    }
    // Larger than the largest side allowed: the same view, fewer pixels.
    const double scale = std::min(1.0, double(kMaxFrameSide) / std::max(w, h));
    c.width = std::clamp(int(std::lround(w * scale)), kMinFrameSide, kMaxFrameSide);
    c.height = std::clamp(int(std::lround(h * scale)), kMinFrameSide, kMaxFrameSide);
    c.fx *= scale;
    c.fy *= scale;
    c.cx *= scale;
    c.cy *= scale;
    try {
        validate(c, "view camera");  // one rule for what radiant renders, whoever sends the camera
    } catch (const Error& e) {
        fail(e.what());
    }
    return c;
}

}  // namespace

const char* to_string(Layer layer) {
    switch (layer) {
        case Layer::rgb:
            return "rgb";
        case Layer::depth:
            return "depth";
        case Layer::alpha:
            return "alpha";
    }
    return "?";
}

const char* to_string(Control control) {
    switch (control) {
        case Control::pause:
            return "pause";
        case Control::resume:
            return "resume";
        case Control::checkpoint:
            return "checkpoint";
        case Control::stop:
            return "stop";
    }
    return "?";
}

ClientMessage parse_client_message(std::string_view text) {
    if (text.size() > kMaxMessageBytes)
        fail(fmt::format("message of {} bytes, more than {}", text.size(), kMaxMessageBytes));
    const json j = json::parse(text.begin(), text.end(), nullptr, false);
    if (j.is_discarded()) fail("not JSON");
    if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) fail("no 'type'");
    const std::string type = j["type"].get<std::string>();
    if (type == "control") {
        if (!j.contains("action") || !j["action"].is_string()) fail("no 'action'");
        const std::string a = j["action"].get<std::string>();
        for (Control c : {Control::pause, Control::resume, Control::checkpoint, Control::stop})
            if (a == to_string(c)) return c;
        fail(fmt::format("unknown action '{}'", a.substr(0, 32)));
    }
    if (type != "view") fail(fmt::format("unknown type '{}'", type.substr(0, 32)));
    ViewRequest v;
    const double id = number(j, "id");
    if (!(id >= 0 && id <= 4294967295.0)) fail("'id' must be a 32-bit unsigned number");
    v.id = std::uint32_t(id);
    if (!j.contains("camera")) fail("no 'camera'");
    v.camera = camera_of(j["camera"]);
    if (j.contains("layer")) {
        if (!j["layer"].is_string()) fail("'layer' must be rgb, depth or alpha");
        const std::string l = j["layer"].get<std::string>();
        if (l == "rgb")
            v.layer = Layer::rgb;
        else if (l == "depth")
            v.layer = Layer::depth;
        else if (l == "alpha")
            v.layer = Layer::alpha;
        else
            fail("'layer' must be rgb, depth or alpha");
    }
    if (j.contains("quality")) v.quality = int(std::clamp(number(j, "quality"), 1.0, 100.0));
    return v;
}

std::string frame_header(std::uint32_t id, std::uint32_t step, std::uint32_t render_us) {
    std::string h(12, '\0');
    for (int i = 0; i < 4; ++i) {
        h[std::size_t(i)] = char((id >> (8 * i)) & 0xff);
        h[std::size_t(4 + i)] = char((step >> (8 * i)) & 0xff);
        h[std::size_t(8 + i)] = char((render_us >> (8 * i)) & 0xff);
    }
    return h;
}

}  // namespace radiant::live
