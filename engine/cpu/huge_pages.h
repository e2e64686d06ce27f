// engine/cpu/huge_pages.h - anonymous memory backed by 2 MiB pages where the
// kernel allows them, for the data the kernels stream from memory.
//
// Batch-1 decode reads every weight once a token. Over 4 KiB pages the
// hardware prefetchers stop at each page boundary and every page costs a TLB
// miss; a checkpoint's file pages cannot be made huge, an anonymous copy can
// (transparent huge pages, asked for with MADV_HUGEPAGE before the memory is
// first touched, which also works where THP is "madvise" only).
#pragma once

#include "engine/cpu/thread_pool.h"

#include <cstddef>
#include <vector>

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

/// One stretch of a copy: `bytes` bytes from `from` to offset `to` of the
/// destination.
struct CopyPiece {
  const void *from;
  size_t to;
  size_t bytes;
};

/// How copy_in_parallel goes about it.
struct ParallelCopyOptions {
  /// The destination is copied in windows of this many bytes, one after
  /// another (a multiple of `align`).
  size_t window = size_t(64) << 20;
  /// Each window is split among the threads at multiples of this (the page
  /// size: each page is then faulted in by one thread).
  size_t align = size_t(2) << 20;
  /// The sources lie in a file mapping: after each window, the whole pages
  /// of the sources copied are unmapped from this process (MADV_DONTNEED;
  /// the file is read again if they are touched), so resident memory holds
  /// the copy and one window of the file, not the file twice over. Never
  /// for anonymous memory, which MADV_DONTNEED zeroes.
  bool drop_file_pages = false;
};

/// Copies `pieces` (disjoint) into `dest` on pool's threads, each thread its
/// own stretch of each window. Why: a fresh buffer's cost is faulting its
/// pages in, and faults on different threads run side by side (on the
/// 2-vCPU Zen 4 VM, whose host takes back freed memory, 1.1 GB was faulted
/// in at 0.43-0.45 GB/s by one thread and at 0.65-0.73 by two). Bytes no
/// piece covers are left as they were; dest should be `align`-aligned.
void copy_in_parallel(ThreadPool &pool, char *dest,
                      const std::vector<CopyPiece> &pieces,
                      const ParallelCopyOptions &options = {});

} // namespace engine
