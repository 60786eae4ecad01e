// The image decoders' wrappers (PNG, JPEG, chosen by signature) and the header-only size probe.
#include "fuzz_target.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/image_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace radiant;
    const std::string_view bytes = fuzz::as_text(data, size);
    fuzz::expect_clean([&] { decode_image(bytes, "fuzz.img"); });
    fuzz::expect_clean([&] { decode_png(bytes, "fuzz.png"); });
    fuzz::expect_clean([&] { decode_jpeg(bytes, "fuzz.jpg"); });
    static const std::string path = fuzz::scratch_path("image").string();
    write_file_atomic(path, bytes);
    fuzz::expect_clean([&] { read_image_size(path); });
    return 0;
}
