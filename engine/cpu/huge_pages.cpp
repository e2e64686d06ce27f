// engine/cpu/huge_pages.cpp - see huge_pages.h.
#include "engine/cpu/huge_pages.h"

#include "engine/error.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>

namespace engine {
namespace {
constexpr size_t kHugePage = size_t(2) << 20;
}

bool transparent_huge_pages_allowed() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(f, line))
    return false;
  // The active setting is the bracketed word: "always [madvise] never".
  return line.find("[always]") != std::string::npos ||
         line.find("[madvise]") != std::string::npos;
}

HugePageBuffer::HugePageBuffer(size_t bytes, bool lazy) {
  size_ = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  if (size_ == 0)
    return;
  // One huge page more than asked, so that an aligned stretch fits.
  map_size_ = size_ + kHugePage;
  void *p =
      mmap(nullptr, map_size_, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | (lazy ? MAP_NORESERVE : 0), -1, 0);
  if (p == MAP_FAILED)
    throw Error("engine: cannot reserve " + std::to_string(size_ >> 20) +
                " MiB for huge pages (" + std::strerror(errno) + ")");
  map_ = static_cast<char *>(p);
  data_ = reinterpret_cast<char *>((uintptr_t(map_) + kHugePage - 1) /
                                   kHugePage * kHugePage);
  // Before the first touch: a page faulted in small stays small until
  // khugepaged, if ever, merges it. A kernel without THP refuses, and the
  // memory is ordinary pages.
  madvise(data_, size_, MADV_HUGEPAGE);
}

HugePageBuffer::~HugePageBuffer() { release(); }

HugePageBuffer::HugePageBuffer(HugePageBuffer &&other) noexcept {
  *this = std::move(other);
}

HugePageBuffer &HugePageBuffer::operator=(HugePageBuffer &&other) noexcept {
  if (this != &other) {
    release();
    map_ = std::exchange(other.map_, nullptr);
    map_size_ = std::exchange(other.map_size_, 0);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void HugePageBuffer::release() {
  if (map_)
    munmap(map_, map_size_);
  map_ = data_ = nullptr;
  map_size_ = size_ = 0;
}

size_t HugePageBuffer::huge_bytes() const {
  if (!data_)
    return 0;
  FILE *f = std::fopen("/proc/self/smaps", "re");
  if (!f)
    return 0;
  // The mapping's own entry starts with its address range; a split mapping
  // (part of it huge, part not) has several, all inside [map_, map_ +
  // map_size_).
  char line[512];
  bool inside = false;
  size_t kib = 0;
  while (std::fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    // Field lines ("AnonHugePages:   0 kB") never parse as a range.
    if (std::sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
      inside = lo >= uintptr_t(map_) && hi <= uintptr_t(map_) + map_size_;
      continue;
    }
    unsigned long n;
    if (inside && std::sscanf(line, "AnonHugePages: %lu kB", &n) == 1)
      kib += n;
  }
  std::fclose(f);
  return kib << 10;
}

namespace {
// Unmaps the whole pages of p's source whose bytes [from, to) (offsets in
// the destination) were just copied; a page the piece shares with its
// neighbours in the file stays, as they may not be copied yet.
void drop_copied_pages(const CopyPiece &p, size_t from, size_t to,
                       uintptr_t page) {
  from = std::max(from, p.to);
  to = std::min(to, p.to + p.bytes);
  if (to <= from)
    return;
  const uintptr_t src = uintptr_t(p.from);
  const uintptr_t first_whole = (src + page - 1) / page * page;
  const uintptr_t lo =
      std::max((src + (from - p.to)) / page * page, first_whole);
  const uintptr_t hi = (src + (to - p.to)) / page * page;
  if (hi > lo)
    madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_DONTNEED);
}
} // namespace

void copy_in_parallel(ThreadPool &pool, char *dest,
                      const std::vector<CopyPiece> &pieces,
                      const ParallelCopyOptions &options) {
  if (options.align == 0 || options.window % options.align != 0)
    throw Error("copy_in_parallel: the window (" +
                std::to_string(options.window) +
                " bytes) is not a multiple of the alignment (" +
                std::to_string(options.align) + ")");
  size_t total = 0;
  for (const CopyPiece &p : pieces)
    total = std::max(total, p.to + p.bytes);
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  for (size_t begin = 0; begin < total; begin += options.window) {
    const size_t end = std::min(total, begin + options.window);
    pool.run([&](int t, int n) {
      const Range mine =
          split_range(int64_t(end - begin), t, n, int64_t(options.align));
      const size_t from = begin + size_t(mine.begin);
      const size_t to = begin + size_t(mine.end);
      for (const CopyPiece &p : pieces) {
        const size_t lo = std::max(p.to, from);
        const size_t hi = std::min(p.to + p.bytes, to);
        if (lo < hi)
          std::memcpy(dest + lo,
                      static_cast<const char *>(p.from) + (lo - p.to), hi - lo);
      }
    });
    if (options.drop_file_pages)
      for (const CopyPiece &p : pieces)
        drop_copied_pages(p, begin, end, page);
  }
}

} // namespace engine
