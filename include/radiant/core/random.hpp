#pragma once
// Counter-based random numbers: a value is a pure function of (seed, counter), so the CPU reference and the
// CUDA kernels draw the same samples for the same Gaussian whatever order they visit Gaussians in, and no
// generator state has to live on the device.
#include <cmath>
#include <cstdint>

#include "radiant/core/hd.hpp"

namespace radiant {

// SplitMix64's finaliser: a bijection of 64-bit words with good avalanche.
RADIANT_HD std::uint64_t mix64(std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

// Uniform in [0, 1) with 53 random bits.
RADIANT_HD double uniform01(std::uint64_t seed, std::uint64_t counter) {
    const std::uint64_t r = mix64(mix64(seed + 0x9e3779b97f4a7c15ull) ^ (counter * 0xd1b54a32d192ed03ull));
    return double(r >> 11) * (1.0 / 9007199254740992.0);
}

// Standard normal (Box–Muller on two uniforms derived from the counter).
RADIANT_HD double normal01(std::uint64_t seed, std::uint64_t counter) {
    const double u1 = 1.0 - uniform01(seed, 2 * counter);  // (0, 1]: log stays finite
    const double u2 = uniform01(seed, 2 * counter + 1);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace radiant
