// PLY: the 3DGS scene reader and the point-cloud reader share the header parser; both see every input.
#include "fuzz_target.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/ply.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace radiant;
    const std::string_view bytes = fuzz::as_text(data, size);
    fuzz::expect_clean([&] { parse_ply(bytes, "fuzz.ply"); });
    // The point-cloud reader takes a path only.
    static const std::string path = fuzz::scratch_path("cloud.ply").string();
    write_file_atomic(path, bytes);
    fuzz::expect_clean([&] { read_point_cloud_ply(path); });
    return 0;
}
