// engine/kv_cache.h - the CPU backend's paged KV cache: for every layer, K
// and V as [num_blocks][block_size][num_kv_heads][head_dim] fp32.
//
// One anonymous mapping, so pages are committed only when a block is first
// written: a cache sized for the worst case costs memory only as it fills.
#pragma once

#include "engine/cpu/attention.h"

#include <cstddef>
#include <cstdint>

namespace engine {

class KvCache {
public:
  KvCache(int num_layers, int num_blocks, int block_size, int num_kv_heads,
          int head_dim);
  ~KvCache();
  KvCache(const KvCache &) = delete;
  KvCache &operator=(const KvCache &) = delete;

  /// Bytes one block takes over all layers, K and V.
  static size_t block_bytes(int num_layers, int block_size, int num_kv_heads,
                            int head_dim);
  PagedKv layer(int i) const;
  int num_blocks() const { return num_blocks_; }
  int block_size() const { return block_size_; }

private:
  int num_layers_, num_blocks_, block_size_, num_kv_heads_, head_dim_;
  size_t layer_floats_; // per layer, K or V
  float *data_ = nullptr;
  size_t bytes_ = 0;
};

} // namespace engine
