#include "radiant/render/cuda/cuda_check.hpp"

#include <fmt/format.h>

namespace radiant::cuda {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
    throw CudaError(fmt::format("{} failed: {} at {}:{}", call, cudaGetErrorString(err), file, line));
}

void check_launch(const char* kernel, const char* file, int line) {
    cudaError_t err = cudaGetLastError();
#ifdef RADIANT_SYNC_CHECKS
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
#endif
    if (err != cudaSuccess)
        throw CudaError(fmt::format("{} failed: {} at {}:{}", kernel, cudaGetErrorString(err), file, line));
}

bool device_available() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();  // clear the sticky "no device" error
        return false;
    }
    return n > 0;
}

std::string device_name() {
    cudaDeviceProp p{};
    RADIANT_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
    return p.name;
}

}  // namespace radiant::cuda
