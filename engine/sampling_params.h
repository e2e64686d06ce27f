// engine/sampling_params.h - how one request's tokens are chosen and when it
// stops (Nano-vLLM's SamplingParams, plus greedy, top-k, top-p and a seed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace engine {

struct SamplingParams {
  /// 0 means greedy (argmax); otherwise logits are divided by it.
  float temperature = 1.0f;
  /// Keep only the k most likely tokens; 0 turns it off.
  int top_k = 0;
  /// Keep the smallest set of most likely tokens whose probability reaches
  /// top_p (the token that crosses it included, as Hugging Face does); 1 = off.
  float top_p = 1.0f;
  /// Output tokens at most; the sequence finishes when it has this many.
  int max_tokens = 64;
  /// Keep going past end-of-sequence tokens (benchmarks).
  bool ignore_eos = false;
  /// Seed of this request's own random stream, so its samples do not depend
  /// on what else is in the batch; unset: derived from the engine's seed and
  /// the request's position in submission order.
  std::optional<uint64_t> seed;
};

/// Throws engine::Error naming the bad field ("sampling: top_p must be in
/// (0, 1], got 1.5").
void validate(const SamplingParams &params);

} // namespace engine
