// engine/kv_cache.cpp - allocation of the paged KV cache.
#include "engine/cpu/kv_cache.h"

#include "engine/error.h"

#include <cstdint>
#include <string>
#include <sys/mman.h>

namespace engine {
namespace {
constexpr size_t kHugePage = size_t(2) << 20;
}

size_t KvCache::block_bytes(int num_layers, int block_size, int num_kv_heads,
                            int head_dim, DType dtype) {
  return size_t(2) * num_layers * block_size * num_kv_heads * head_dim *
         dtype_size(dtype);
}

KvCache::KvCache(int num_layers, int num_blocks, int block_size,
                 int num_kv_heads, int head_dim, DType dtype)
    : num_layers_(num_layers), num_blocks_(num_blocks), block_size_(block_size),
      num_kv_heads_(num_kv_heads), head_dim_(head_dim), dtype_(dtype) {
  layer_bytes_ = size_t(num_blocks) * block_size * num_kv_heads * head_dim *
                 dtype_size(dtype);
  bytes_ = size_t(2) * num_layers * layer_bytes_;
  // One huge page more than the cache, so that a 2 MiB-aligned stretch fits.
  map_bytes_ = bytes_ + kHugePage;
  void *p = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw Error("kv cache: cannot reserve " + std::to_string(bytes_ >> 20) +
                " MiB for " + std::to_string(num_blocks) + " blocks");
  map_ = static_cast<char *>(p);
  data_ = reinterpret_cast<char *>((uintptr_t(map_) + kHugePage - 1) /
                                   kHugePage * kHugePage);
  // Decode writes one new position per sequence, layer, K and V each step:
  // in 4 KiB pages a page fault every other step for each (on a VM a fault
  // costs microseconds: store_kv took 5% of a 16-sequence decode). In 2 MiB
  // pages, one fault per 2 MiB, where the kernel allows them (THP "always"
  // or "madvise"); else ordinary pages.
  madvise(data_, bytes_, MADV_HUGEPAGE);
}

KvCache::~KvCache() {
  if (map_)
    munmap(map_, map_bytes_);
}

PagedKv KvCache::layer(int i) const {
  PagedKv kv;
  kv.k = data_ + size_t(2 * i) * layer_bytes_;
  kv.v = data_ + size_t(2 * i + 1) * layer_bytes_;
  kv.dtype = dtype_;
  kv.num_blocks = num_blocks_;
  kv.block_size = block_size_;
  kv.num_kv_heads = num_kv_heads_;
  kv.head_dim = head_dim_;
  return kv;
}

} // namespace engine
