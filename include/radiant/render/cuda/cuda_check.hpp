#pragma once
// CUDA error handling (STYLE.md "CUDA errors"): every runtime call is checked and a failure throws CudaError
// naming the call, the error and the place. Host-side header; g++ can include it.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "radiant/core/error.hpp"

namespace radiant::cuda {

class CudaError : public Error {
  public:
    using Error::Error;
};

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
// An allocation of `bytes` that the budget refused (over_budget) or cudaMalloc could not serve: OutOfMemory
// naming the sizes (radiant's own, the budget, the GPU's free and total memory).
[[noreturn]] void throw_device_out_of_memory(std::size_t bytes, std::size_t held, std::size_t budget,
                                             bool over_budget);
// Free and total memory of the current device.
std::pair<std::size_t, std::size_t> device_memory_info();
void check_launch(const char* kernel, const char* file, int line);

// Whether a usable CUDA device is present (false, not an exception, when there is none).
bool device_available();
std::string device_name();

}  // namespace radiant::cuda

#define RADIANT_CUDA_CHECK(call)                                                        \
    do {                                                                                \
        const cudaError_t radiant_err_ = (call);                                        \
        if (radiant_err_ != cudaSuccess)                                                \
            ::radiant::cuda::throw_cuda_error(radiant_err_, #call, __FILE__, __LINE__); \
    } while (0)

// After a launch: the launch error, and with RADIANT_SYNC_CHECKS (Debug) a synchronisation so an
// asynchronous fault names its kernel.
#define RADIANT_CUDA_CHECK_LAUNCH(kernel) ::radiant::cuda::check_launch(kernel, __FILE__, __LINE__)
