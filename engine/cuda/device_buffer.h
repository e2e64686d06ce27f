// engine/cuda/device_buffer.h - owned device and pinned host allocations.
#pragma once

#include "engine/cuda/cuda_check.h"

#include <cstddef>
#include <utility>

namespace engine::cuda {

/// Device memory (cudaMalloc).
struct DeviceMemory {
  static cudaError_t allocate(void **p, size_t bytes) {
    return cudaMalloc(p, bytes);
  }
  static void release(void *p) { cudaFree(p); }
};
/// Page-locked host memory (cudaMallocHost), what an asynchronous copy
/// needs on the host side.
struct PinnedMemory {
  static cudaError_t allocate(void **p, size_t bytes) {
    return cudaMallocHost(p, bytes);
  }
  static void release(void *p) { cudaFreeHost(p); }
};

/// count elements of T in Memory, freed on destruction; movable, not
/// copyable. A failed allocation throws engine::Error naming `what`.
template <class T, class Memory> class Buffer {
public:
  Buffer() = default;
  Buffer(size_t count, const char *what) : count_(count) {
    if (count)
      check(Memory::allocate(reinterpret_cast<void **>(&data_),
                             count * sizeof(T)),
            what);
  }
  Buffer(Buffer &&o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        count_(std::exchange(o.count_, 0)) {}
  Buffer &operator=(Buffer &&o) noexcept {
    std::swap(data_, o.data_);
    std::swap(count_, o.count_);
    return *this;
  }
  ~Buffer() {
    if (data_)
      Memory::release(data_);
  }
  T *get() const { return data_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

private:
  T *data_ = nullptr;
  size_t count_ = 0;
};

template <class T> using DeviceBuffer = Buffer<T, DeviceMemory>;
template <class T> using PinnedBuffer = Buffer<T, PinnedMemory>;

} // namespace engine::cuda
