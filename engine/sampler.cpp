// engine/sampler.cpp - greedy, temperature, top-k, top-p and the draw (see
// sampler.h); the passes over a whole row are in cpu/sampler_kernels.cpp.
#include "engine/sampler.h"

#include "engine/cpu/sampler_kernels.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

namespace engine {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// Probabilities are summed per chunk so the inverse-CDF walk over a dense
// row can skip whole chunks.
constexpr int64_t kChunk = 1024;

float exp_scalar(float x) { return x >= -87.0f ? std::exp(x) : 0.0f; }

// x[i] = exp((x[i] - max) * inv_t) in place; records each chunk's sum.
void exp_in_place(float *x, int64_t n, float max, float inv_t,
                  std::vector<double> &chunk_sums) {
  const SamplerKernels &k = sampler_kernels();
  chunk_sums.clear();
  for (int64_t start = 0; start < n; start += kChunk)
    chunk_sums.push_back(
        k.exp_in_place(x + start, std::min(kChunk, n - start), max, inv_t));
}

} // namespace

int32_t Sampler::argmax(const float *logits, int64_t vocab) {
  if (vocab < 1)
    throw std::invalid_argument("argmax: vocab must be positive");
  const SamplerKernels &k = sampler_kernels();
  const int64_t i = k.first_index_of(logits, vocab, k.row_max(logits, vocab));
  return static_cast<int32_t>(i < 0 ? 0 : i);
}

void Sampler::select_top_k(const float *x, int64_t n, int k) {
  // Keep a buffer of every value >= the k-th largest seen so far; when it
  // fills, shrink it back to that threshold. Almost every logit fails the
  // vectorized comparison, so this is one cheap pass over the row.
  std::vector<Candidate> &buf = cands_;
  size_t cap = std::max<size_t>(4 * static_cast<size_t>(k), 256);
  float thr = kNegInf;
  const auto by_value_desc = [](const Candidate &a, const Candidate &b) {
    return a.value > b.value;
  };
  const auto shrink = [&] {
    std::nth_element(buf.begin(), buf.begin() + (k - 1), buf.end(),
                     by_value_desc);
    thr = buf[k - 1].value;
    // Ties with the k-th value stay (as Hugging Face keeps them).
    buf.erase(std::remove_if(buf.begin(), buf.end(),
                             [&](const Candidate &c) { return c.value < thr; }),
              buf.end());
    if (buf.size() * 2 >= cap)
      cap *= 2;
  };
  const SamplerKernels &kernels = sampler_kernels();
  const auto scan = [&](float start_threshold) {
    buf.clear();
    thr = start_threshold;
    for (int64_t i = 0; i < n;) {
      i = kernels.skip_below(x, i, n, thr);
      for (const int64_t end = std::min(n, i + kGroup); i < end; ++i)
        if (x[i] >= thr) {
          buf.push_back({x[i], static_cast<int32_t>(i)});
          if (buf.size() >= cap)
            shrink();
        }
    }
  };
  // A large k would let many values through before the running threshold
  // climbs; start instead from an estimate taken from a strided sample,
  // aiming at about 2k survivors. Should fewer than k values reach it, the
  // scan is repeated from -inf, so the estimate never changes the result.
  constexpr int64_t kSample = 2048;
  float estimate = kNegInf;
  if (k >= 64 && n >= 16 * kSample) {
    std::vector<float> &sample = sample_;
    sample.clear();
    const int64_t stride = n / kSample;
    for (int64_t j = 0; j < kSample; ++j)
      if (!std::isnan(x[j * stride]))
        sample.push_back(x[j * stride]);
    const size_t rank =
        static_cast<size_t>(2 * static_cast<int64_t>(k) * kSample / n + 16);
    if (rank < sample.size()) {
      std::nth_element(sample.begin(), sample.begin() + rank, sample.end(),
                       std::greater<float>());
      estimate = sample[rank];
    }
  }
  scan(estimate);
  if (buf.size() < static_cast<size_t>(k) && estimate != kNegInf)
    scan(kNegInf);
  if (buf.size() > static_cast<size_t>(k))
    shrink();
}

size_t Sampler::nucleus(size_t n, double target) {
  // Mass-weighted quickselect: everything left of `lo` is kept and more
  // likely than anything in [lo, hi); the token crossing `target` lies in
  // [lo, hi). Only the last few candidates (and ties) are ever sorted.
  const auto desc = [](const Candidate &a, const Candidate &b) {
    return a.value != b.value ? a.value > b.value : a.index < b.index;
  };
  Candidate *c = cands_.data();
  size_t lo = 0, hi = n;
  double acc = 0;
  while (hi > lo) {
    if (hi - lo <= 32) {
      std::sort(c + lo, c + hi, desc);
      for (size_t i = lo; i < hi; ++i) {
        acc += c[i].value;
        if (acc >= target)
          return i + 1;
      }
      return hi;
    }
    float a = c[lo].value, b = c[lo + (hi - lo) / 2].value, d = c[hi - 1].value;
    const float pivot = std::max(std::min(a, b), std::min(std::max(a, b), d));
    // Three-way partition: [lo, gt) > pivot, [gt, lt) == pivot, rest <.
    size_t gt = lo, i = lo, lt = hi;
    while (i < lt) {
      if (c[i].value > pivot)
        std::swap(c[gt++], c[i++]);
      else if (c[i].value < pivot)
        std::swap(c[i], c[--lt]);
      else
        ++i;
    }
    double mass = 0;
    for (size_t j = lo; j < gt; ++j)
      mass += c[j].value;
    if (acc + mass >= target && gt > lo) {
      hi = gt;
      continue;
    }
    acc += mass;
    const double tie_mass = static_cast<double>(lt - gt) * pivot;
    if (acc + tie_mass >= target) {
      std::sort(c + gt, c + lt, desc);
      for (size_t j = gt; j < lt; ++j) {
        acc += pivot;
        if (acc >= target)
          return j + 1;
      }
      return lt;
    }
    acc += tie_mass;
    lo = lt;
  }
  return std::max<size_t>(hi, 1);
}

int32_t Sampler::draw(size_t n, Rng &rng) const {
  if (n == 0)
    return 0;
  double total = 0;
  for (size_t i = 0; i < n; ++i)
    total += cands_[i].value;
  const double u = rng.uniform_double() * total;
  double acc = 0;
  int32_t last = cands_[0].index;
  for (size_t i = 0; i < n; ++i) {
    if (cands_[i].value <= 0)
      continue;
    acc += cands_[i].value;
    last = cands_[i].index;
    if (u < acc)
      return last;
  }
  return last; // u landed past the sum by rounding
}

int32_t Sampler::draw_dense(const float *probs, int64_t vocab, Rng &rng) const {
  double total = 0;
  for (double s : chunk_sums_)
    total += s;
  const double u = rng.uniform_double() * total;
  double acc = 0;
  int64_t i = 0;
  // Skip whole chunks, then walk token by token from the chunk holding u
  // (on to later chunks if rounding makes that chunk's walk fall short).
  for (size_t c = 0; c < chunk_sums_.size(); ++c, i += kChunk) {
    if (acc + chunk_sums_[c] > u)
      break;
    acc += chunk_sums_[c];
  }
  int64_t last = -1;
  for (; i < vocab; ++i) {
    if (probs[i] <= 0)
      continue;
    acc += probs[i];
    last = i;
    if (u < acc)
      return static_cast<int32_t>(i);
  }
  // Rounding left u past the sum: the last token with any probability.
  for (i = vocab - 1; last < 0 && i >= 0; --i)
    if (probs[i] > 0)
      last = i;
  return static_cast<int32_t>(last < 0 ? 0 : last);
}

int32_t Sampler::sample(float *logits, int64_t vocab,
                        const SamplingParams &params, Rng &rng) {
  if (vocab < 1)
    throw std::invalid_argument("sampler: vocab must be positive");
  const float inv_t = 1.0f / params.temperature;
  if (!(params.temperature > 0) || !std::isfinite(inv_t))
    return argmax(logits, vocab);
  const bool use_top_p = params.top_p < 1.0f;

  if (params.top_k > 0 && params.top_k < vocab) {
    select_top_k(logits, vocab, params.top_k);
    if (cands_.empty())
      return argmax(logits, vocab); // every logit is NaN
    float max = kNegInf;
    for (const Candidate &c : cands_)
      max = std::max(max, c.value);
    if (!std::isfinite(max))
      return argmax(logits, vocab);
    double total = 0;
    for (Candidate &c : cands_) {
      c.value = exp_scalar((c.value - max) * inv_t);
      total += c.value;
    }
    const size_t n = use_top_p ? nucleus(cands_.size(), params.top_p * total)
                               : cands_.size();
    return draw(n, rng);
  }

  const float max = sampler_kernels().row_max(logits, vocab);
  if (!std::isfinite(max))
    return argmax(logits, vocab);
  exp_in_place(logits, vocab, max, inv_t, chunk_sums_);
  if (!use_top_p)
    return draw_dense(logits, vocab, rng);
  double total = 0;
  for (double s : chunk_sums_)
    total += s;
  // Tokens below (1 - top_p) * total / vocab together hold less than
  // 1 - top_p, so the nucleus lies among the rest: usually a few hundred.
  const float floor = static_cast<float>((1.0 - params.top_p) * total /
                                         static_cast<double>(vocab));
  cands_.clear();
  const SamplerKernels &kernels = sampler_kernels();
  for (int64_t i = 0; i < vocab;) {
    i = kernels.skip_below(logits, i, vocab, floor);
    for (const int64_t end = std::min(vocab, i + kGroup); i < end; ++i)
      if (logits[i] >= floor && logits[i] > 0)
        cands_.push_back({logits[i], static_cast<int32_t>(i)});
  }
  return draw(nucleus(cands_.size(), params.top_p * total), rng);
}

void Sampler::sample_batch(float *logits, int64_t n, int64_t vocab,
                           Sequence *const *seqs, int32_t *out) {
  if (n < 0 || vocab < 1)
    throw std::invalid_argument("sampler: bad batch shape");
  for (int64_t i = 0; i < n; ++i)
    out[i] = sample(logits + i * vocab, vocab, seqs[i]->params, seqs[i]->rng);
}

void sample_batch(float *logits, int64_t n, int64_t vocab,
                  Sequence *const *seqs, int32_t *out) {
  // One per thread: the scratch buffers then live as long as the thread.
  thread_local Sampler sampler;
  sampler.sample_batch(logits, n, vocab, seqs, out);
}

} // namespace engine
