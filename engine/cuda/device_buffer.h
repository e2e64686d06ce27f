// engine/cuda/device_buffer.h - owned device and pinned host allocations.
#pragma once

#include "engine/cuda/cuda_check.h"

#include <cstddef>
#include <utility>

namespace engine::cuda {

/// count elements of T in device memory (cudaMalloc), freed on destruction.
template <class T> class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(size_t count, const char *what) : count_(count) {
    if (count)
      check(cudaMalloc(reinterpret_cast<void **>(&data_), count * sizeof(T)),
            what);
  }
  DeviceBuffer(DeviceBuffer &&o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer &operator=(DeviceBuffer &&o) noexcept {
    std::swap(data_, o.data_);
    std::swap(count_, o.count_);
    return *this;
  }
  ~DeviceBuffer() {
    if (data_)
      cudaFree(data_);
  }
  T *get() const { return data_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

private:
  T *data_ = nullptr;
  size_t count_ = 0;
};

/// count elements of T in page-locked host memory (what an asynchronous
/// copy needs), freed on destruction.
template <class T> class PinnedBuffer {
public:
  PinnedBuffer() = default;
  PinnedBuffer(size_t count, const char *what) : count_(count) {
    if (count)
      check(
          cudaMallocHost(reinterpret_cast<void **>(&data_), count * sizeof(T)),
          what);
  }
  PinnedBuffer(PinnedBuffer &&o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        count_(std::exchange(o.count_, 0)) {}
  PinnedBuffer &operator=(PinnedBuffer &&o) noexcept {
    std::swap(data_, o.data_);
    std::swap(count_, o.count_);
    return *this;
  }
  ~PinnedBuffer() {
    if (data_)
      cudaFreeHost(data_);
  }
  T *get() const { return data_; }
  size_t size() const { return count_; }

private:
  T *data_ = nullptr;
  size_t count_ = 0;
};

} // namespace engine::cuda
