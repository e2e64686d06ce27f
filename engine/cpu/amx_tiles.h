// engine/cpu/amx_tiles.h - the AMX tile configuration the kernels share
// (internal to engine/cpu): all eight tiles full size, 16 rows of 64 bytes.
// Include only from files whose functions carry an AMX target attribute.
#pragma once

#include <cstdint>
#include <immintrin.h>

namespace engine::cpu_detail {

/// The 64-byte block `ldtilecfg` reads (palette 1).
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

/// Configures tiles 0-7 as 16×64 bytes on this thread; pair with
/// _tile_release() so the thread's context switches stay cheap.
__attribute__((target("amx-tile"))) inline void configure_full_tiles() {
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  _tile_loadconfig(&cfg);
}

} // namespace engine::cpu_detail
