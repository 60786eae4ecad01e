#pragma once
// An interleaved image: data[(y·width + x)·channels + c], row 0 at the top.
#include <cstddef>
#include <vector>

namespace radiant {

template <class T>
struct Image {
    int width = 0, height = 0, channels = 0;
    std::vector<T> data;

    Image() = default;
    Image(int w, int h, int c, T fill = T(0))
        : width(w), height(h), channels(c), data(std::size_t(w) * std::size_t(h) * std::size_t(c), fill) {}

    std::size_t pixels() const { return std::size_t(width) * std::size_t(height); }
    T& at(int x, int y, int c = 0) {
        return data[(std::size_t(y) * std::size_t(width) + std::size_t(x)) * channels + c];
    }
    const T& at(int x, int y, int c = 0) const {
        return data[(std::size_t(y) * std::size_t(width) + std::size_t(x)) * channels + c];
    }
};

}  // namespace radiant
