#pragma once
// Little-endian bytes in and out of strings, for the binary scene formats. Private to io/.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "radiant/core/error.hpp"
#include "radiant/core/scene.hpp"

namespace radiant::detail {

template <class T>
void put(std::string& out, T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out.append(b, sizeof(T));
}

// Reads fixed-size values from a view; running past its end is an IoError naming the file.
class ByteReader {
  public:
    ByteReader(std::string_view bytes, const std::string& name) : bytes_(bytes), name_(name) {}
    template <class T>
    T get() {
        need(sizeof(T));
        T v;
        std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
        pos_ += sizeof(T);
        return v;
    }
    std::string_view take(std::size_t n) {
        need(n);
        const std::string_view v = bytes_.substr(pos_, n);
        pos_ += n;
        return v;
    }
    std::size_t pos() const { return pos_; }
    std::size_t remaining() const { return bytes_.size() - pos_; }
    void seek(std::size_t p) {
        if (p > bytes_.size()) throw IoError(name_, "offset past the end of the file");
        pos_ = p;
    }

  private:
    void need(std::size_t n) const {
        if (n > bytes_.size() - pos_)
            throw IoError(name_, "truncated: " + std::to_string(n) + " bytes needed at byte " +
                                     std::to_string(pos_) + ", " + std::to_string(bytes_.size() - pos_) +
                                     " left");
    }
    std::string_view bytes_;
    const std::string& name_;
    std::size_t pos_ = 0;
};

// A decoded scene must be one radiant can use: every value finite, no zero rotation (IoError naming the
// file).
inline Scene checked_scene(Scene s, const std::string& name) {
    try {
        validate(s, "decoded scene");
    } catch (const IoError&) {
        throw;
    } catch (const Error& e) {
        throw IoError(name, e.what());
    }
    return s;
}

// Quantising to 8 bits; callers pass finite values (encoders validate their scene first).
inline std::uint8_t to_u8(double v) {
    return std::uint8_t(v <= 0 ? 0 : v >= 255 ? 255 : v + 0.5);
}

}  // namespace radiant::detail
