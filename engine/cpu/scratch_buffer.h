// engine/cpu/scratch_buffer.h - a grow-only, 64-byte aligned scratch buffer
// (internal to engine/cpu).
//
// Kernels need per-call temporaries (x rounded to bf16, packed tiles, score
// blocks) of up to a few MiB; allocating them fresh would fault in new pages
// on every call, so each thread keeps one buffer per use and only grows it.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

namespace engine::cpu_detail {

class ScratchBuffer {
public:
  ScratchBuffer() = default;
  ScratchBuffer(const ScratchBuffer &) = delete;
  ScratchBuffer &operator=(const ScratchBuffer &) = delete;
  ~ScratchBuffer() { std::free(data_); }

  /// At least `bytes` bytes, 64-byte aligned; earlier contents are lost when
  /// the buffer grows. Throws std::bad_alloc when memory runs out.
  void *get(size_t bytes) {
    if (bytes > size_) {
      std::free(data_);
      size_t rounded = (bytes + 4095) / 4096 * 4096;
      data_ = std::aligned_alloc(64, rounded);
      size_ = data_ ? rounded : 0;
      if (!data_)
        throw std::bad_alloc();
    }
    return data_;
  }
  template <typename T> T *get(size_t count) {
    return static_cast<T *>(get(count * sizeof(T)));
  }

private:
  void *data_ = nullptr;
  size_t size_ = 0;
};

} // namespace engine::cpu_detail
