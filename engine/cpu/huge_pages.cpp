// engine/cpu/huge_pages.cpp - see huge_pages.h.
#include "engine/cpu/huge_pages.h"

#include "engine/error.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/mman.h>
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

} // namespace engine
