#pragma once
// RAII device memory (STYLE.md "Memory"): move-only, never shrinks within a run, bytes counted so benchmarks
// report the peak and a budget can refuse an allocation. Host-side header.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "radiant/render/cuda/cuda_check.hpp"

namespace radiant::cuda {

// Bytes allocated through DeviceBuffers that share it, the peak, and a budget (0: none) that an allocation
// may not take `current` over.
struct MemoryCounter {
    std::size_t current = 0, peak = 0, budget = 0;
    void add(std::size_t b) {
        current += b;
        peak = std::max(peak, current);
    }
    void remove(std::size_t b) { current -= b; }
};

template <class T>
class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(MemoryCounter* counter) : counter_(counter) {}
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            release();
            std::swap(ptr_, o.ptr_);
            std::swap(size_, o.size_);
            std::swap(capacity_, o.capacity_);
            std::swap(counter_, o.counter_);
        }
        return *this;
    }
    ~DeviceBuffer() { release(); }

    void set_counter(MemoryCounter* c) { counter_ = c; }

    // Ensures room for n elements (contents not kept when it grows) and sets size() = n. Grows to exactly n:
    // 1.5x headroom cost 19 % more peak memory on bonsai (2.36 vs 1.98 GiB) and no time (bench/RESULTS.md).
    void resize_discard(std::size_t n) {
        if (n > capacity_) {
            release();
            if (counter_ && counter_->budget && counter_->current + n * sizeof(T) > counter_->budget)
                throw_device_out_of_memory(n * sizeof(T), counter_->current, counter_->budget, true);
            const cudaError_t err =
                cudaMalloc(reinterpret_cast<void**>(&ptr_), std::max<std::size_t>(1, n) * sizeof(T));
            if (err == cudaErrorMemoryAllocation) {
                ptr_ = nullptr;
                throw_device_out_of_memory(n * sizeof(T), counter_ ? counter_->current : 0,
                                           counter_ ? counter_->budget : 0, false);
            }
            RADIANT_CUDA_CHECK(err);
            capacity_ = n;
            if (counter_) counter_->add(capacity_ * sizeof(T));
        }
        size_ = n;
    }
    void upload(const T* host, std::size_t n, cudaStream_t stream = nullptr) {
        resize_discard(n);
        if (n) RADIANT_CUDA_CHECK(cudaMemcpyAsync(ptr_, host, n * sizeof(T), cudaMemcpyHostToDevice, stream));
    }
    void upload(const std::vector<T>& v, cudaStream_t stream = nullptr) {
        upload(v.data(), v.size(), stream);
    }
    std::vector<T> download(cudaStream_t stream = nullptr) const {
        std::vector<T> v(size_);
        if (size_) {
            RADIANT_CUDA_CHECK(
                cudaMemcpyAsync(v.data(), ptr_, size_ * sizeof(T), cudaMemcpyDeviceToHost, stream));
            RADIANT_CUDA_CHECK(cudaStreamSynchronize(stream));
        }
        return v;
    }
    void zero(cudaStream_t stream = nullptr) {
        if (size_) RADIANT_CUDA_CHECK(cudaMemsetAsync(ptr_, 0, size_ * sizeof(T), stream));
    }

    T* data() { return ptr_; }
    const T* data() const { return ptr_; }
    std::size_t size() const { return size_; }

  private:
    void release() {
        if (ptr_) {
            cudaFree(ptr_);
            if (counter_) counter_->remove(capacity_ * sizeof(T));
        }
        ptr_ = nullptr;
        size_ = capacity_ = 0;
    }
    T* ptr_ = nullptr;
    std::size_t size_ = 0, capacity_ = 0;
    MemoryCounter* counter_ = nullptr;
};

}  // namespace radiant::cuda
