// engine/cpu/huge_pages.h - anonymous memory backed by 2 MiB pages where the
// kernel allows them, for the data the kernels stream from memory.
//
// Batch-1 decode reads every weight once a token. Over 4 KiB pages the
// hardware prefetchers stop at each page boundary and every page costs a TLB
// miss; a checkpoint's file pages cannot be made huge, an anonymous copy can
// (transparent huge pages, asked for with MADV_HUGEPAGE before the memory is
// first touched, which also works where THP is "madvise" only).
#pragma once

#include <cstddef>

namespace engine {

/// Whether transparent huge pages can back memory that asks for them
/// (/sys/kernel/mm/transparent_hugepage/enabled is "always" or "madvise";
/// false where it is "never" or cannot be read).
bool transparent_huge_pages_allowed();

class HugePageBuffer {
public:
  HugePageBuffer() = default;
  /// Reserves `bytes` (rounded up to 2 MiB), 2 MiB aligned; throws
  /// engine::Error if the memory cannot be had. `lazy`: no swap space is
  /// reserved for it (MAP_NORESERVE), for a buffer sized for the worst case
  /// and committed page by page as it is first written (the KV cache).
  explicit HugePageBuffer(size_t bytes, bool lazy = false);
  ~HugePageBuffer();
  HugePageBuffer(HugePageBuffer &&other) noexcept;
  HugePageBuffer &operator=(HugePageBuffer &&other) noexcept;
  HugePageBuffer(const HugePageBuffer &) = delete;
  HugePageBuffer &operator=(const HugePageBuffer &) = delete;

  char *data() const { return data_; }
  size_t size() const { return size_; }
  /// Bytes of it the kernel backs with huge pages now (from
  /// /proc/self/smaps; 0 where it cannot say).
  size_t huge_bytes() const;

private:
  void release();
  char *map_ = nullptr; // what mmap returned (data_ rounded down)
  size_t map_size_ = 0;
  char *data_ = nullptr;
  size_t size_ = 0;
};

} // namespace engine
