#pragma once
// RADIANT_HD marks the shared maths: __host__ __device__ under nvcc, nothing under a plain C++ compiler,
// so the CPU reference and the CUDA kernels compile the very same functions.
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
