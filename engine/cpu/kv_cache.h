// engine/cpu/kv_cache.h - the CPU backend's paged KV cache: for every layer, K
// and V as [num_blocks][block_size][num_kv_heads][head_dim], in fp32 or bf16.
//
// The KV type follows the weights, as Hugging Face keeps the cache in the
// model's dtype: bf16 models get a bf16 cache (half the memory and, at long
// contexts, a faster decode), f32 and f16 models an fp32 one.
//
// One anonymous mapping, so pages are committed only when a block is first
// written: a cache sized for the worst case costs memory only as it fills,
// in 2 MiB pages where the kernel allows them (kv_cache.cpp says why).
#pragma once

#include "engine/cpu/attention.h"
#include "engine/cpu/huge_pages.h"

#include <cstddef>
#include <cstdint>

namespace engine {

class KvCache {
public:
  KvCache(int num_layers, int num_blocks, int block_size, int num_kv_heads,
          int head_dim, DType dtype = DType::F32);
  KvCache(const KvCache &) = delete;
  KvCache &operator=(const KvCache &) = delete;

  /// Bytes one block takes over all layers, K and V.
  static size_t block_bytes(int num_layers, int block_size, int num_kv_heads,
                            int head_dim, DType dtype);
  PagedKv layer(int i) const;
  int num_blocks() const { return num_blocks_; }
  int block_size() const { return block_size_; }
  DType dtype() const { return dtype_; }

private:
  int num_layers_, num_blocks_, block_size_, num_kv_heads_, head_dim_;
  DType dtype_;
  size_t layer_bytes_; // per layer, K or V
  size_t bytes_ = 0;
  HugePageBuffer memory_;
};

} // namespace engine
