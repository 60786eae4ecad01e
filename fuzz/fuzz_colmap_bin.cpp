// COLMAP binary model files: every input goes to all three parsers.
#include "fuzz_target.hpp"
#include "radiant/io/colmap.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace radiant;
    const std::string bytes(fuzz::as_text(data, size));
    fuzz::expect_clean([&] {
        for (const ColmapCamera& c : parse_colmap_cameras_bin(bytes, "cameras.bin"))
            colmap_intrinsics(c, "fuzz");
    });
    fuzz::expect_clean([&] { parse_colmap_images_bin(bytes, "images.bin"); });
    fuzz::expect_clean([&] { parse_colmap_points_bin(bytes, "points3D.bin"); });
    return 0;
}
