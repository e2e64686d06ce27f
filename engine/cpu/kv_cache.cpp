// engine/kv_cache.cpp - allocation of the paged KV cache.
#include "engine/cpu/kv_cache.h"

#include "engine/error.h"

#include <string>

namespace engine {

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
  // Decode writes one new position per sequence, layer, K and V each step:
  // in 4 KiB pages a page fault every other step for each (on a VM a fault
  // costs microseconds: store_kv took 5% of a 16-sequence decode). In 2 MiB
  // pages, one fault per 2 MiB, where the kernel allows them; else ordinary
  // pages. Lazy: committed as blocks are first written.
  try {
    memory_ = HugePageBuffer(bytes_, true);
  } catch (const Error &) {
    throw Error("kv cache: cannot reserve " + std::to_string(bytes_ >> 20) +
                " MiB for " + std::to_string(num_blocks) + " blocks");
  }
}

PagedKv KvCache::layer(int i) const {
  PagedKv kv;
  kv.k = memory_.data() + size_t(2 * i) * layer_bytes_;
  kv.v = memory_.data() + size_t(2 * i + 1) * layer_bytes_;
  kv.dtype = dtype_;
  kv.num_blocks = num_blocks_;
  kv.block_size = block_size_;
  kv.num_kv_heads = num_kv_heads_;
  kv.head_dim = head_dim_;
  return kv;
}

} // namespace engine
