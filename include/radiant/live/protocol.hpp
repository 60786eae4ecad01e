#pragma once
// The live viewer's messages (issue 21). The page sends JSON text over its WebSocket:
//   {"type": "view", "id": 7, "layer": "rgb" | "depth" | "alpha", "quality": 80,
//    "camera": {"width", "height", "fx", "fy", "cx", "cy", "R": [9 numbers, rows, world→camera], "t": [3]}}
//   {"type": "control", "action": "pause" | "resume" | "checkpoint" | "stop"}
// and gets back JSON text ("hello" with the cameras, "status" a few times a second) and binary frames: a
// 12-byte header (the view's id, the step it shows, the render's microseconds; little-endian uint32) then a
// JPEG.
// Everything a client sends is untrusted: a message is refused whole, with the reason, and never reaches
// the file system; frame sizes are clamped.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "radiant/core/camera.hpp"
#include "radiant/core/error.hpp"

namespace radiant::live {

inline constexpr std::size_t kMaxMessageBytes = 64 * 1024;
inline constexpr int kMaxFrameSide = 4096;
inline constexpr int kMinFrameSide = 8;

enum class Layer { rgb, depth, alpha };
const char* to_string(Layer layer);

struct ViewRequest {
    std::uint32_t id = 0;
    Camera camera;  // pinhole, each side in [kMinFrameSide, kMaxFrameSide] (larger requests scaled down)
    Layer layer = Layer::rgb;
    int quality = 80;  // JPEG, 1..100
};

enum class Control { pause, resume, checkpoint, stop };
const char* to_string(Control control);

using ClientMessage = std::variant<ViewRequest, Control>;

class ProtocolError : public Error {
  public:
    using Error::Error;
};

// Throws ProtocolError naming what is wrong (oversized, not JSON, unknown type, missing or bad field).
ClientMessage parse_client_message(std::string_view text);

// The binary frame's header.
std::string frame_header(std::uint32_t id, std::uint32_t step, std::uint32_t render_us);

}  // namespace radiant::live
