// engine/sampler.h - turns a row of logits into the next token: greedy
// argmax at temperature 0, otherwise temperature, top-k, a numerically
// stable fp32 softmax, top-p (nucleus) and one inverse-CDF draw from the
// sequence's own random stream. Built for large vocabularies (Qwen3:
// 151,936): no row is ever fully sorted; top-k is a vectorized threshold scan
// and top-p a mass-weighted quickselect over the few tokens that can matter.
#pragma once

#include "engine/random.h"
#include "engine/sampling_params.h"
#include "engine/sequence.h"

#include <cstdint>
#include <vector>

namespace engine {

/// Samples row i of `logits` ([n][vocab], overwritten) for seqs[i] into
/// out[i], as Sampler::sample_batch() does, with a Sampler private to the
/// calling thread. Throws std::invalid_argument for vocab < 1 or n < 0.
void sample_batch(float *logits, int64_t n, int64_t vocab,
                  Sequence *const *seqs, int32_t *out);

/// Holds scratch buffers reused across rows, so one Sampler must not be used
/// by two threads at once (give each thread its own).
class Sampler {
public:
  /// Index of the largest logit, the lowest one on ties; NaNs are skipped
  /// (0 when every logit is NaN). Throws std::invalid_argument for vocab < 1.
  static int32_t argmax(const float *logits, int64_t vocab);

  /// Samples row `i` of `logits` ([n][vocab], overwritten with scratch
  /// values) for seqs[i] with its params and its rng into out[i]. Each row
  /// draws only from its own sequence's stream, so results do not depend on
  /// the batch. Throws std::invalid_argument for vocab < 1 or n < 0.
  void sample_batch(float *logits, int64_t n, int64_t vocab,
                    Sequence *const *seqs, int32_t *out);

  /// One row: temperature 0 returns argmax() and draws nothing; otherwise
  /// logits are divided by the temperature, cut to the top_k largest (ties
  /// with the k-th kept; 0 = off), softmaxed, cut to the smallest most
  /// likely set whose probability reaches top_p (the crossing token kept;
  /// 1 = off), renormalized, and sampled with one rng.uniform_double().
  /// Ties at the top_p crossing keep the lowest indices. NaN logits are
  /// never chosen; an infinite maximum falls back to argmax. The same
  /// logits, params and rng state always give the same token (which token a
  /// given draw maps to follows the kept set's internal order, not the
  /// vocabulary's). `logits` is overwritten. Throws std::invalid_argument
  /// for vocab < 1.
  int32_t sample(float *logits, int64_t vocab, const SamplingParams &params,
                 Rng &rng);

private:
  struct Candidate {
    float value; ///< logit, then probability
    int32_t index;
  };
  void select_top_k(const float *logits, int64_t vocab, int k);
  size_t nucleus(size_t n, double target);
  int32_t draw(size_t n, Rng &rng) const;
  int32_t draw_dense(const float *probs, int64_t vocab, Rng &rng) const;

  std::vector<Candidate> cands_;
  std::vector<float> sample_;
  std::vector<double> chunk_sums_;
};

} // namespace engine
