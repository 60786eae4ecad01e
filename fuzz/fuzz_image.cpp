// The image decoders' wrappers (PNG, JPEG, chosen by signature) and the header-only size probe.
#include "fuzz_target.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/image_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace radiant;
    // Decoding costs time in proportion to the pixels, and a few hundred bytes of progressive JPEG can
    // declare millions of them: the fuzzer would time out on honest work. A 4 MP bound keeps each input
    // fast while still running every check, the bound's own included.
    constexpr std::size_t kPixels = std::size_t(1) << 22;
    const std::string_view bytes = fuzz::as_text(data, size);
    fuzz::expect_clean([&] { decode_image(bytes, "fuzz.img", kPixels); });
    fuzz::expect_clean([&] { decode_png(bytes, "fuzz.png", kPixels); });
    fuzz::expect_clean([&] { decode_jpeg(bytes, "fuzz.jpg", kPixels); });
    static const std::string path = fuzz::scratch_path("image").string();
    write_file_atomic(path, bytes);
    fuzz::expect_clean([&] { read_image_size(path); });
    return 0;
}
