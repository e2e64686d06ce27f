// engine/cuda/gemv_options.cpp - ENGINE_CUDA_PREFETCH and
// ENGINE_CUDA_GEMV_ROWS.
#include "engine/cuda/gemv_options.h"

#include "engine/cuda/dependent_launch.h"
#include "engine/env_switch.h"
#include "engine/error.h"

#include <cstdlib>
#include <string>

namespace engine::cuda {

bool gemv_prefetch_enabled() {
  static const bool enabled = env_switch(
      "ENGINE_CUDA_PREFETCH", false,
      "0 (the default: a GEMV reads its weights after its wait) or 1 (it "
      "prefetches them into L2 before)");
  return enabled;
}

namespace {
int read_rows_per_group() {
  const char *value = std::getenv("ENGINE_CUDA_GEMV_ROWS");
  if (value == nullptr)
    return 1;
  const std::string v = value;
  if (v == "1" || v == "2" || v == "4")
    return std::stoi(v);
  throw Error("engine: ENGINE_CUDA_GEMV_ROWS=" + v +
              ": must be 1 (the default), 2 or 4 (the rows a GEMV's group of "
              "warps takes at once)");
}
} // namespace

int gemv_rows_per_group() {
  static const int rows = read_rows_per_group();
  return rows;
}

GemvOptions gemv_options_now() {
  GemvOptions o;
  o.prefetch = gemv_prefetch_enabled() && dependent_launch_now();
  o.rows_per_group = gemv_rows_per_group();
  return o;
}

} // namespace engine::cuda
