#include "radiant/core/reduce_resolution.hpp"

#include "radiant/core/error.hpp"

namespace radiant {

Camera reduced_camera(const Camera& camera, int factor) {
    RADIANT_CHECK(factor >= 1, "reduced_camera: the factor must be at least 1");
    Camera c = camera;
    c.width = reduced_size(camera.width, factor);
    c.height = reduced_size(camera.height, factor);
    c.fx /= factor;
    c.fy /= factor;
    c.cx /= factor;
    c.cy /= factor;
    return c;
}

TargetImage reduced_image(const TargetImage& image, int factor) {
    RADIANT_CHECK(factor >= 1 && image.rgb.width >= factor && image.rgb.height >= factor,
                  "reduced_image: the factor must be at least 1 and at most the image's size");
    const Image<std::uint8_t>& src = image.rgb;
    TargetImage out;
    out.rgb =
        Image<std::uint8_t>(reduced_size(src.width, factor), reduced_size(src.height, factor), src.channels);
    for (int y = 0; y < out.rgb.height; ++y)
        for (int x = 0; x < out.rgb.width; ++x)
            for (int c = 0; c < src.channels; ++c)
                out.rgb.at(x, y, c) = block_mean(src.data.data(), src.width, src.channels, x, y, factor, c);
    if (!image.mask.data.empty()) {
        out.mask = Image<std::uint8_t>(out.rgb.width, out.rgb.height, 1);
        for (int y = 0; y < out.mask.height; ++y)
            for (int x = 0; x < out.mask.width; ++x)
                out.mask.at(x, y) = block_mask(image.mask.data.data(), image.mask.width, x, y, factor);
    }
    return out;
}

}  // namespace radiant
