// engine/cuda/attention_options.cpp - ENGINE_CUDA_PREFILL_STAGING and
// ENGINE_CUDA_FOLD_QK_NORM.
#include "engine/cuda/attention_options.h"

#include "engine/env_switch.h"
#include "engine/error.h"

#include <cstdlib>
#include <string>

namespace engine::cuda {

namespace {
PrefillStaging read_staging() {
  const char *value = std::getenv("ENGINE_CUDA_PREFILL_STAGING");
  if (value == nullptr)
    return PrefillStaging::transpose;
  const std::string v = value;
  if (v == "transpose")
    return PrefillStaging::transpose;
  if (v == "ldmatrix")
    return PrefillStaging::ldmatrix;
  if (v == "async")
    return PrefillStaging::async;
  throw Error("engine: ENGINE_CUDA_PREFILL_STAGING=" + v +
              ": must be transpose (the default), ldmatrix or async (how "
              "prefill attention stages its K and V tiles)");
}
} // namespace

PrefillStaging prefill_staging() {
  static const PrefillStaging staging = read_staging();
  return staging;
}

bool decode_folds_qk_norm() {
  static const bool folds = env_switch(
      "ENGINE_CUDA_FOLD_QK_NORM", false,
      "0 (the default: a kernel of its own norms q and k, applies RoPE and "
      "stores k and v) or 1 (decode attention does it)");
  return folds;
}

} // namespace engine::cuda
