#include "radiant/render/cuda/cuda_check.hpp"

#include <fmt/format.h>

namespace radiant::cuda {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
    throw CudaError(fmt::format("{} failed: {} at {}:{}", call, cudaGetErrorString(err), file, line));
}

std::pair<std::size_t, std::size_t> device_memory_info() {
    std::size_t free = 0, total = 0;
    RADIANT_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    return {free, total};
}

void throw_device_out_of_memory(std::size_t bytes, std::size_t held, std::size_t budget, bool over_budget) {
    cudaGetLastError();  // a failed cudaMalloc leaves a non-sticky error: clear it, the device stays usable
    std::size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    const std::string sizes =
        fmt::format("radiant holds {}{}; the GPU has {} free of {}", format_bytes(held),
                    budget ? fmt::format(" of its {} budget", format_bytes(budget)) : "", format_bytes(free),
                    format_bytes(total));
    if (over_budget)
        throw OutOfMemory(
            fmt::format("GPU memory budget exceeded: {} more needed ({})", format_bytes(bytes), sizes));
    throw OutOfMemory(fmt::format("GPU out of memory allocating {} ({})", format_bytes(bytes), sizes));
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
