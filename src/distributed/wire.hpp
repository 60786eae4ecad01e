#pragma once
// Plain values in and out of the byte buffers ranks exchange. Both ends are the same build on the same kind
// of machine, so values travel in their memory layout.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "radiant/core/error.hpp"
#include "radiant/core/scene.hpp"
#include "radiant/distributed/communicator.hpp"

namespace radiant::distributed {

class Writer {
  public:
    explicit Writer(Bytes& out) : out_(out) {}
    template <class T>
    void put(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        const std::size_t at = out_.size();
        out_.resize(at + sizeof(T));
        std::memcpy(out_.data() + at, &v, sizeof(T));
    }
    template <class T>
    void put(const T* v, std::size_t n) {
        static_assert(std::is_trivially_copyable_v<T>);
        const std::size_t at = out_.size();
        out_.resize(at + n * sizeof(T));
        if (n) std::memcpy(out_.data() + at, v, n * sizeof(T));
    }

  private:
    Bytes& out_;
};

class Reader {
  public:
    explicit Reader(const Bytes& in) : in_(in) {}
    bool done() const { return at_ == in_.size(); }
    template <class T>
    T get() {
        T v;
        get(&v, 1);
        return v;
    }
    template <class T>
    void get(T* v, std::size_t n) {
        static_assert(std::is_trivially_copyable_v<T>);
        RADIANT_CHECK(at_ + n * sizeof(T) <= in_.size(), "a rank's message is shorter than its contents");
        if (n) std::memcpy(v, in_.data() + at_, n * sizeof(T));
        at_ += n * sizeof(T);
    }

  private:
    const Bytes& in_;
    std::size_t at_ = 0;
};

// The same buffer to every rank; what every rank sent, by source.
inline std::vector<Bytes> all_gather(Communicator& comm, const Bytes& mine) {
    return comm.all_to_all(std::vector<Bytes>(std::size_t(comm.size()), mine));
}

// The floats of one Gaussian's row in each array of a Scene, in a fixed order.
template <class S, class F>
void for_each_array(S& s, F&& f) {
    const std::size_t k = std::size_t(s.sh_coeffs()) * 3;
    f(s.means, 3);
    f(s.log_scales, 3);
    f(s.quats, 4);
    f(s.opacity_logits, 1);
    f(s.sh, k);
}

inline void put_row(Writer& w, const Scene& s, std::size_t i) {
    for_each_array(
        s, [&](const std::vector<float>& a, std::size_t width) { w.put(a.data() + i * width, width); });
}

inline void read_row(Reader& r, Scene& s, std::size_t i) {
    for_each_array(s, [&](std::vector<float>& a, std::size_t width) { r.get(a.data() + i * width, width); });
}

// Row j of the result is row from[j] of `own`, or, where from[j] ≥ own.size(), row from[j] − own.size() of
// `arrived` (the same SH degree).
template <class Index>
Scene gather_rows(const Scene& own, const std::vector<Index>& from, const Scene* arrived = nullptr) {
    const std::size_t n = own.size();
    RADIANT_CHECK(!arrived || arrived->size() == 0 || arrived->sh_degree == own.sh_degree,
                  "arriving rows of another SH degree than the share's");
    for (const Index f : from)
        RADIANT_CHECK(std::size_t(f) < n + (arrived ? arrived->size() : 0),
                      "a share's row that is neither held nor arriving");
    Scene to;
    to.sh_degree = own.sh_degree;
    to.resize(from.size());
    std::vector<std::vector<float>*> dst;
    for_each_array(to, [&](std::vector<float>& a, std::size_t) { dst.push_back(&a); });
    std::vector<const std::vector<float>*> in;
    if (arrived)
        for_each_array(*arrived, [&](const std::vector<float>& a, std::size_t) { in.push_back(&a); });
    std::size_t k = 0;
    for_each_array(own, [&](const std::vector<float>& s, std::size_t width) {
        std::vector<float>& d = *dst[k];
        const float* other = arrived ? in[k]->data() : nullptr;
        ++k;
        for (std::size_t j = 0; j < from.size(); ++j) {
            const std::size_t f = std::size_t(from[j]);
            const float* src = f < n ? s.data() + f * width : other + (f - n) * width;
            std::copy_n(src, width, d.begin() + std::ptrdiff_t(j * width));
        }
    });
    return to;
}

}  // namespace radiant::distributed
