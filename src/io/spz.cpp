// Niantic's SPZ (scene_formats.hpp): v2/v3 read from one gzip stream, v4 read and written as a plain header,
// a table of contents and one zstd stream per attribute.
#include <fmt/format.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "byte_io.hpp"
#include "radiant/io/scene_formats.hpp"

namespace radiant {
namespace {

constexpr std::uint32_t kSpzMagic = 0x5053474e;  // "NGSP"
constexpr double kSpzColourScale = 0.15;
constexpr int kFractionalBits = 12;
// Decoded SPZ payloads are at most 2 GiB: a header may not make us allocate more.
constexpr std::size_t kMaxSpzBytes = std::size_t(1) << 31;

int rest_count(int degree) {
    return (sh_coeff_count(degree) - 1) * 3;
}

// The attribute blocks, in file order.
struct SpzStreams {
    std::string positions, alphas, colours, scales, rotations, sh;
};

std::uint8_t quantise_sh(float x, int bits) {
    const int bucket = 1 << (8 - bits);
    int q = int(std::lround(double(x) * 128.0)) + 128;
    q = (q + bucket / 2) / bucket * bucket;
    return std::uint8_t(std::clamp(q, 0, 255));
}

SpzStreams pack(const Scene& s) {
    SpzStreams p;
    const std::size_t n = s.size(), k = std::size_t(s.sh_coeffs()) * 3;
    const double unit = double(1 << kFractionalBits);
    for (std::size_t i = 0; i < n; ++i) {
        for (int c = 0; c < 3; ++c) {
            const double v =
                std::clamp(std::round(double(s.means[3 * i + std::size_t(c)]) * unit), -8388608.0, 8388607.0);
            const std::int32_t q = std::int32_t(v);
            for (int b = 0; b < 3; ++b) p.positions.push_back(char((q >> (8 * b)) & 0xff));
        }
        p.alphas.push_back(char(detail::to_u8(sigmoid(double(s.opacity_logits[i])) * 255)));
        for (int c = 0; c < 3; ++c)
            p.colours.push_back(
                char(detail::to_u8((s.sh[i * k + std::size_t(c)] * kSpzColourScale + 0.5) * 255)));
        for (int c = 0; c < 3; ++c)
            p.scales.push_back(char(detail::to_u8((s.log_scales[3 * i + std::size_t(c)] + 10.0) * 16.0)));
        // Smallest three of the unit quaternion in x y z w order, the largest made positive: a 2-bit index,
        // then each other component as sign + 9-bit magnitude of |v|/√½, the first in the highest bits.
        const Vec4<float> q4 = s.quat(i);
        double q[4] = {q4.y, q4.z, q4.w, q4.x};
        const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        int largest = 0;
        for (int c = 0; c < 4; ++c) {
            q[c] /= norm;
            if (std::abs(q[c]) > std::abs(q[largest])) largest = c;
        }
        const bool negate = q[largest] < 0;
        std::uint32_t packed = 0;
        for (int c = 0; c < 4; ++c) {
            if (c == largest) continue;
            const double v = negate ? -q[c] : q[c];
            const std::uint32_t mag =
                std::uint32_t(std::min(511.0, std::round(std::abs(v) / std::sqrt(0.5) * 511.0)));
            packed = (packed << 10) | (v < 0 ? 1u << 9 : 0u) | mag;
        }
        packed |= std::uint32_t(largest) << 30;
        detail::put(p.rotations, packed);
        for (int coef = 1; coef < s.sh_coeffs(); ++coef)
            for (int c = 0; c < 3; ++c)
                p.sh.push_back(char(
                    quantise_sh(s.sh[i * k + std::size_t(coef) * 3 + std::size_t(c)], coef < 4 ? 5 : 4)));
    }
    return p;
}

Scene unpack(const SpzStreams& p, std::size_t n, int degree, int fractional_bits, int version) {
    Scene s;
    s.sh_degree = degree;
    s.resize(n);
    const std::size_t k = std::size_t(s.sh_coeffs()) * 3, rest = std::size_t(rest_count(degree));
    const double unit = 1.0 / double(1 << fractional_bits);
    auto u8 = [](const std::string& b, std::size_t i) { return double(std::uint8_t(b[i])); };
    for (std::size_t i = 0; i < n; ++i) {
        for (int c = 0; c < 3; ++c) {
            const std::size_t o = 9 * i + 3 * std::size_t(c);
            std::int32_t v = std::int32_t(std::uint8_t(p.positions[o])) |
                             std::int32_t(std::uint8_t(p.positions[o + 1])) << 8 |
                             std::int32_t(std::uint8_t(p.positions[o + 2])) << 16;
            if (v & 0x800000) v -= 0x1000000;  // sign-extend 24 bits
            s.means[3 * i + std::size_t(c)] = float(v * unit);
        }
        const double a = std::clamp(u8(p.alphas, i) / 255.0, 1e-6, 1 - 1e-6);
        s.opacity_logits[i] = float(std::log(a / (1 - a)));
        for (int c = 0; c < 3; ++c)
            s.sh[i * k + std::size_t(c)] =
                float((u8(p.colours, 3 * i + std::size_t(c)) / 255.0 - 0.5) / kSpzColourScale);
        for (int c = 0; c < 3; ++c)
            s.log_scales[3 * i + std::size_t(c)] = float(u8(p.scales, 3 * i + std::size_t(c)) / 16.0 - 10.0);
        double q[4] = {0, 0, 0, 0};  // x y z w
        if (version == 2) {
            for (int c = 0; c < 3; ++c) q[c] = u8(p.rotations, 3 * i + std::size_t(c)) / 127.5 - 1.0;
            q[3] = std::sqrt(std::max(0.0, 1.0 - (q[0] * q[0] + q[1] * q[1] + q[2] * q[2])));
        } else {
            std::uint32_t packed;
            std::memcpy(&packed, p.rotations.data() + 4 * i, 4);
            const int largest = int(packed >> 30);
            double sum = 0;
            for (int c = 3; c >= 0; --c) {
                if (c == largest) continue;
                const double mag = double(packed & 511u) / 511.0 * std::sqrt(0.5);
                q[c] = (packed >> 9) & 1u ? -mag : mag;
                packed >>= 10;
                sum += q[c] * q[c];
            }
            q[largest] = std::sqrt(std::max(0.0, 1.0 - sum));
        }
        s.quats[4 * i] = float(q[3]);
        for (int c = 0; c < 3; ++c) s.quats[4 * i + 1 + std::size_t(c)] = float(q[c]);
        for (std::size_t j = 0; j < rest; ++j)
            s.sh[i * k + 3 + j] = float((u8(p.sh, i * rest + j) - 128.0) / 128.0);
    }
    return s;
}

std::string gunzip(std::string_view in, const std::string& name) {
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw IoError(name, "cannot start gzip decoding");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = uInt(std::min<std::size_t>(in.size(), std::numeric_limits<uInt>::max()));
    std::string out;
    char buf[1 << 16];
    int rc;
    do {
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END) {
            inflateEnd(&z);
            throw IoError(name, fmt::format("corrupt gzip data ({})", z.msg ? z.msg : "inflate failed"));
        }
        out.append(buf, sizeof buf - z.avail_out);
        if (out.size() > kMaxSpzBytes) {
            inflateEnd(&z);
            throw IoError(name, "SPZ payload larger than 2 GiB");
        }
        if (rc != Z_STREAM_END && z.avail_in == 0 && z.avail_out != 0) {
            inflateEnd(&z);
            throw IoError(name, "truncated gzip data");
        }
    } while (rc != Z_STREAM_END);
    inflateEnd(&z);
    return out;
}

std::string gzip(const std::string& in) {
    z_stream z{};
    deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, uLong(in.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = uInt(in.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

struct Header {
    std::uint32_t version = 0, points = 0;
    int degree = 0, fractional_bits = 0, streams = 0;
    std::uint32_t toc = 0;
};

Header read_header(detail::ByteReader& r, const std::string& name) {
    Header h;
    if (r.get<std::uint32_t>() != kSpzMagic) throw IoError(name, "not an SPZ file (no 'NGSP' magic)");
    h.version = r.get<std::uint32_t>();
    if (h.version < 2 || h.version > 4)
        throw IoError(name, fmt::format("SPZ version {} is not 2, 3 or 4", h.version));
    h.points = r.get<std::uint32_t>();
    h.degree = r.get<std::uint8_t>();
    h.fractional_bits = r.get<std::uint8_t>();
    r.get<std::uint8_t>();  // flags (antialiased): radiant renders without the filter either way
    h.streams = r.get<std::uint8_t>();
    if (h.degree > 3) throw IoError(name, fmt::format("SH degree {} is more than 3", h.degree));
    if (h.fractional_bits > 23)
        throw IoError(name, fmt::format("{} fractional bits is more than 23", h.fractional_bits));
    if (h.version >= 4) {
        h.toc = r.get<std::uint32_t>();
        r.take(12);
    }
    return h;
}

std::size_t checked_size(std::size_t n, std::size_t per, const std::string& name) {
    if (per && n > kMaxSpzBytes / per)
        throw IoError(name, fmt::format("{} splats is more than an SPZ file may hold", n));
    return n * per;
}

}  // namespace

std::string encode_spz(const Scene& s, int version) {
    RADIANT_CHECK(version >= 2 && version <= 4, "SPZ version must be 2, 3 or 4");
    validate(s, "scene to write as SPZ");
    SpzStreams p = pack(s);
    if (version == 2) {  // 3-byte rotations: x y z of the quaternion with w ≥ 0
        p.rotations.clear();
        for (std::size_t i = 0; i < s.size(); ++i) {
            Vec4<float> q = s.quat(i);
            const double n =
                std::sqrt(double(q.x) * q.x + double(q.y) * q.y + double(q.z) * q.z + double(q.w) * q.w) *
                (q.x < 0 ? -1 : 1);
            for (float v : {q.y, q.z, q.w}) p.rotations.push_back(char(detail::to_u8((v / n + 1.0) * 127.5)));
        }
    }
    std::string header;
    detail::put(header, kSpzMagic);
    detail::put(header, std::uint32_t(version));
    detail::put(header, std::uint32_t(s.size()));
    detail::put(header, std::uint8_t(s.sh_degree));
    detail::put(header, std::uint8_t(kFractionalBits));
    detail::put(header, std::uint8_t(0));  // flags
    const std::string* blocks[] = {&p.positions, &p.alphas, &p.colours, &p.scales, &p.rotations, &p.sh};
    const int streams = s.sh_degree > 0 ? 6 : 5;
    if (version < 4) {
        detail::put(header, std::uint8_t(0));  // reserved
        for (int b = 0; b < streams; ++b) header += *blocks[b];
        return gzip(header);
    }
    detail::put(header, std::uint8_t(streams));
    detail::put(header, std::uint32_t(32));  // the table of contents follows the header
    header.append(12, '\0');
    std::string toc, data;
    for (int b = 0; b < streams; ++b) {
        const std::string& in = *blocks[b];
        std::string z(ZSTD_compressBound(in.size()), '\0');
        const std::size_t n = ZSTD_compress(z.data(), z.size(), in.data(), in.size(), 12);
        RADIANT_CHECK(!ZSTD_isError(n), std::string("zstd: ") + ZSTD_getErrorName(n));
        z.resize(n);
        detail::put(toc, std::uint64_t(n));
        detail::put(toc, std::uint64_t(in.size()));
        data += z;
    }
    return header + toc + data;
}

Scene decode_spz(std::string_view bytes, const std::string& name) {
    std::string inflated;
    if (bytes.size() >= 2 && std::uint8_t(bytes[0]) == 0x1f && std::uint8_t(bytes[1]) == 0x8b) {
        inflated = gunzip(bytes, name);
        bytes = inflated;
    }
    detail::ByteReader r(bytes, name);
    const Header h = read_header(r, name);
    if (h.version >= 4 && !inflated.empty()) throw IoError(name, "an SPZ v4 file inside gzip");
    if (h.version < 4 && inflated.empty())
        throw IoError(name, fmt::format("SPZ v{} data that is not gzip-compressed", h.version));
    const std::size_t n = h.points;
    const std::size_t sizes[] = {checked_size(n, 9, name),
                                 n,
                                 checked_size(n, 3, name),
                                 checked_size(n, 3, name),
                                 checked_size(n, h.version == 2 ? 3 : 4, name),
                                 checked_size(n, std::size_t(rest_count(h.degree)), name)};
    const int streams = h.degree > 0 ? 6 : 5;
    SpzStreams p;
    std::string* blocks[] = {&p.positions, &p.alphas, &p.colours, &p.scales, &p.rotations, &p.sh};
    if (h.version < 4) {
        for (int b = 0; b < streams; ++b) *blocks[b] = std::string(r.take(sizes[b]));
    } else {
        if (h.streams != streams)
            throw IoError(
                name, fmt::format("{} streams, expected {} for SH degree {}", h.streams, streams, h.degree));
        r.seek(h.toc);
        std::uint64_t compressed[6], raw[6];
        for (int b = 0; b < streams; ++b) {
            compressed[b] = r.get<std::uint64_t>();
            raw[b] = r.get<std::uint64_t>();
            if (raw[b] != sizes[b])
                throw IoError(name, fmt::format("stream {} holds {} bytes, expected {} for {} splats", b,
                                                raw[b], sizes[b], n));
        }
        for (int b = 0; b < streams; ++b) {
            if (compressed[b] > r.remaining())
                throw IoError(name, fmt::format("stream {} runs past the end of the file", b));
            const std::string_view z = r.take(std::size_t(compressed[b]));
            std::string out(sizes[b], '\0');
            const std::size_t got = ZSTD_decompress(out.data(), out.size(), z.data(), z.size());
            if (ZSTD_isError(got) || got != sizes[b])
                throw IoError(
                    name,
                    fmt::format("stream {}: corrupt zstd data{}", b,
                                ZSTD_isError(got) ? std::string(" (") + ZSTD_getErrorName(got) + ")" : ""));
            *blocks[b] = std::move(out);
        }
    }
    return detail::checked_scene(unpack(p, n, h.degree, h.fractional_bits, int(h.version)), name);
}

}  // namespace radiant
