// The live viewer's client messages (issue 21): whatever a browser, or anything else that reaches the port,
// sends over the WebSocket. A message is taken or refused whole (ProtocolError); a taken view request always
// holds a camera radiant can render.
#include <cstdlib>

#include "fuzz_target.hpp"
#include "radiant/live/protocol.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace radiant;
    fuzz::expect_clean([&] {
        const live::ClientMessage m = live::parse_client_message(fuzz::as_text(data, size));
        if (const auto* v = std::get_if<live::ViewRequest>(&m)) {
            try {
                validate(v->camera, "fuzzed view");
            } catch (const Error&) {
                std::abort();  // a camera radiant cannot render got through
            }
            if (v->camera.width > live::kMaxFrameSide || v->camera.height > live::kMaxFrameSide ||
                v->quality < 1 || v->quality > 100)
                std::abort();
        }
    });
    return 0;
}
