#pragma once
// RADIANT_HD marks the shared maths: __host__ __device__ under nvcc, nothing under a plain C++ compiler,
// so the CPU reference and the CUDA kernels compile the very same functions.
#include <type_traits>

#if defined(__CUDACC__)
#define RADIANT_HD __host__ __device__ __forceinline__
#else
#define RADIANT_HD inline
#endif

// Loop unrolling for the kernels (constant indices keep small arrays in registers); nothing for host code
// (nvcc's host pass hands pragmas to g++, which would warn).
#if defined(__CUDA_ARCH__)
#define RADIANT_UNROLL _Pragma("unroll")
#else
#define RADIANT_UNROLL
#endif

// Products and sums rounded as written, never contracted into a fused multiply-add: for maths that two
// kernels must compute to the same bits (the SH basis: the geometry backward and the optimizer that rebuilds
// its SH gradient), since nvcc contracts each kernel as its own surrounding code allows.
namespace radiant {
template <class T>
RADIANT_HD T mul_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, float>) return __fmul_rn(a, b);
#endif
    return a * b;
}
template <class T>
RADIANT_HD T add_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, float>) return __fadd_rn(a, b);
#endif
    return a + b;
}
template <class T>
RADIANT_HD T sub_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, float>) return __fsub_rn(a, b);
#endif
    return a - b;
}
}  // namespace radiant
