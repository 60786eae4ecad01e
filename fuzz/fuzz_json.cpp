// transforms.json (instant-ngp and NeRF-synthetic layouts, read from a folder) and radiant's cameras.json.
#include "fuzz_target.hpp"
#include "radiant/io/camera_json.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/transforms_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace radiant;
    const std::string_view text = fuzz::as_text(data, size);
    fuzz::expect_clean([&] { parse_cameras_json(text, "cameras.json"); });
    static const std::filesystem::path dir = [] {
        const std::filesystem::path d = fuzz::scratch_path("dataset");
        std::filesystem::create_directories(d);
        return d;
    }();
    write_file_atomic((dir / "transforms.json").string(), text);
    fuzz::expect_clean([&] { read_transforms_dataset(dir.string()); });
    return 0;
}
