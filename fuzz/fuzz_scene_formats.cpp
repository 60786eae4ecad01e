// The shared scene formats (.splat, compressed PLY, SPZ v2/v3/v4): every decoder sees every input, and what
// one accepts is re-encoded and decoded again (the writers must take any scene a reader produces).
#include "fuzz_target.hpp"
#include "radiant/io/scene_formats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace radiant;
    const std::string_view bytes = fuzz::as_text(data, size);
    fuzz::expect_clean(
        [&] { decode_compressed_ply(encode_compressed_ply(decode_splat(bytes, "fuzz.splat")), "re"); });
    fuzz::expect_clean(
        [&] { decode_spz(encode_spz(decode_compressed_ply(bytes, "fuzz.compressed.ply")), "re"); });
    fuzz::expect_clean([&] { decode_splat(encode_splat(decode_spz(bytes, "fuzz.spz")), "re"); });
    return 0;
}
