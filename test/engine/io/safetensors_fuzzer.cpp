// test/engine/io/safetensors_fuzzer.cpp - libFuzzer target for the
// safetensors reader: any bytes either parse into views that lie inside the
// input and agree with their shapes, or give one engine::Error line naming
// the input. Never a crash, a read out of bounds or another exception.
//
// Usage: safetensors_fuzzer -max_total_time=300 CORPUS_DIR
#include "engine/error.h"
#include "engine/io/safetensors.h"

#include <cstdint>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  try {
    engine::SafetensorsFile f =
        engine::SafetensorsFile::from_memory(data, size, "fuzz.safetensors");
    unsigned sum = 0;
    for (const engine::TensorView &t : f.tensors()) {
      auto *p = static_cast<const uint8_t *>(t.data);
      if (p < data || p + t.nbytes > data + size ||
          uint64_t(t.numel()) * engine::dtype_size(t.dtype) != t.nbytes ||
          f.find(t.name) != &t)
        __builtin_trap();
      // Touch every byte, so ASan checks the whole range.
      for (size_t i = 0; i < t.nbytes; ++i)
        sum += p[i];
    }
    volatile unsigned sink = sum;
    (void)sink;
  } catch (const engine::Error &e) {
    const char *msg = e.what();
    if (std::strncmp(msg, "fuzz.safetensors: ", 18) != 0 ||
        std::strchr(msg, '\n') != nullptr)
      __builtin_trap();
  }
  return 0;
}
