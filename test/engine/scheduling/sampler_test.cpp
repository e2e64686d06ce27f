// Sampler: greedy is exact argmax, sampled frequencies match
// softmax(logits / T) (chi-square at p = 0.001, fixed seeds so it cannot
// flake), top-k and top-p keep exactly the right tokens, and each sequence's
// samples depend only on its own seed. Also validate(SamplingParams).
#include "engine/error.h"
#include "engine/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

using namespace engine;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

SamplingParams params(float temperature, int top_k = 0, float top_p = 1.0f) {
  SamplingParams p;
  p.temperature = temperature;
  p.top_k = top_k;
  p.top_p = top_p;
  return p;
}

std::vector<float> random_logits(int64_t vocab, uint64_t seed,
                                 float scale = 4.0f) {
  Rng rng(seed);
  std::vector<float> l(vocab);
  for (float &x : l)
    x = (rng.uniform() - 0.5f) * 2 * scale;
  return l;
}

// Counts per token over `n` draws (the logits are copied for each draw).
std::vector<int> histogram(const std::vector<float> &logits,
                           const SamplingParams &p, int n, uint64_t seed) {
  Sampler sampler;
  Rng rng(seed);
  std::vector<int> counts(logits.size(), 0);
  std::vector<float> work;
  for (int i = 0; i < n; ++i) {
    work = logits;
    ++counts.at(
        sampler.sample(work.data(), static_cast<int64_t>(work.size()), p, rng));
  }
  return counts;
}

std::vector<double> softmax(const std::vector<float> &logits, double t) {
  double m = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p(logits.size());
  double sum = 0;
  for (size_t i = 0; i < p.size(); ++i)
    sum += p[i] = std::exp((logits[i] - m) / t);
  for (double &x : p)
    x /= sum;
  return p;
}

// Pearson's statistic over the tokens with non-zero expected probability;
// any draw of a zero-probability token makes it infinite.
double chi_square(const std::vector<int> &counts,
                  const std::vector<double> &probs, int n) {
  double chi = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (probs[i] == 0) {
      if (counts[i] != 0)
        return kInf;
      continue;
    }
    const double e = probs[i] * n;
    chi += (counts[i] - e) * (counts[i] - e) / e;
  }
  return chi;
}

// Upper 0.001 quantiles of chi-square with df degrees of freedom.
double chi_square_critical(int df) {
  static const double q[] = {0,      10.828, 13.816, 16.266, 18.467,
                             20.515, 22.458, 24.322, 26.124, 27.877};
  return q[df];
}

const std::vector<float> kTen = {1.0f,  0.5f, -0.3f, 2.0f,  0.0f,
                                 -1.0f, 0.7f, 1.5f,  -2.0f, 0.2f};

std::set<int> drawn(const std::vector<int> &counts) {
  std::set<int> s;
  for (size_t i = 0; i < counts.size(); ++i)
    if (counts[i] > 0)
      s.insert(static_cast<int>(i));
  return s;
}

} // namespace

TEST(Sampler, GreedyIsArgmaxWithLowestIndexOnTiesAndDrawsNothing) {
  Sampler sampler;
  for (int64_t vocab : {1, 7, 16, 17, 151936}) {
    std::vector<float> l = random_logits(vocab, vocab);
    const int64_t best = std::max_element(l.begin(), l.end()) - l.begin();
    Rng rng(5), untouched(5);
    EXPECT_EQ(sampler.sample(l.data(), vocab, params(0), rng), best);
    EXPECT_EQ(rng.next(), untouched.next());
  }
  std::vector<float> ties(100, 1.0f);
  ties[3] = ties[40] = ties[77] = 9.0f;
  EXPECT_EQ(Sampler::argmax(ties.data(), 100), 3);
  ties[3] = kNaN;
  EXPECT_EQ(Sampler::argmax(ties.data(), 100), 40);
  std::vector<float> nans(20, kNaN);
  EXPECT_EQ(Sampler::argmax(nans.data(), 20), 0);
  std::vector<float> neg(20, -kInf);
  neg[18] = -1e30f;
  EXPECT_EQ(Sampler::argmax(neg.data(), 20), 18);
}

TEST(Sampler, FrequenciesMatchTheTemperatureSoftmax) {
  const int n = 200000;
  for (float t : {0.6f, 1.0f, 2.5f}) {
    const auto counts = histogram(kTen, params(t), n, 11);
    EXPECT_LT(chi_square(counts, softmax(kTen, t), n), chi_square_critical(9))
        << "T=" << t;
  }
  // The test has power: the same counts do not fit a different temperature.
  const auto counts = histogram(kTen, params(1.0f), n, 11);
  EXPECT_GT(chi_square(counts, softmax(kTen, 1.1), n), chi_square_critical(9));
}

TEST(Sampler, TopKKeepsTheKMostLikelyRenormalized) {
  const int n = 100000;
  const auto counts = histogram(kTen, params(0.8f, 4), n, 12);
  // Tokens 3, 7, 0, 6 (logits 2, 1.5, 1, 0.7).
  std::vector<float> top(kTen.size(), -kInf);
  for (int i : {3, 7, 0, 6})
    top[i] = kTen[i];
  EXPECT_LT(chi_square(counts, softmax(top, 0.8), n), chi_square_critical(3));
  EXPECT_EQ(drawn(counts), (std::set<int>{0, 3, 6, 7}));
}

TEST(Sampler, TopKKeepsTiesWithTheKthLogit) {
  const std::vector<float> l = {5, 4, 3, 3, 1, 3, 0};
  EXPECT_EQ(drawn(histogram(l, params(3.0f, 3), 20000, 13)),
            (std::set<int>{0, 1, 2, 3, 5}));
}

TEST(Sampler, TopKOnALargeVocabularyKeepsExactlyTheTopK) {
  const int64_t vocab = 151936;
  const std::vector<float> l = random_logits(vocab, 99, 1.0f);
  std::vector<int32_t> order(vocab);
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + 20, order.end(),
                    [&](int32_t a, int32_t b) { return l[a] > l[b]; });
  const std::set<int> top(order.begin(), order.begin() + 20);
  // Flat logits (range 2) at a high temperature: all 20 show up.
  EXPECT_EQ(drawn(histogram(l, params(5.0f, 20), 3000, 14)), top);
}

TEST(Sampler, TopPKeepsTheCrossingTokenAndNothingBeyond) {
  // Probabilities 0.4, 0.3, 0.2, 0.1 at T = 1.
  const std::vector<float> l = {std::log(0.3f), std::log(0.1f), std::log(0.4f),
                                std::log(0.2f)};
  const auto top_p = [&](float p) {
    return drawn(histogram(l, params(1.0f, 0, p), 20000, 15));
  };
  EXPECT_EQ(top_p(0.35f), (std::set<int>{2}));
  EXPECT_EQ(top_p(0.65f), (std::set<int>{2, 0}));       // 0.4 + 0.3 crosses
  EXPECT_EQ(top_p(0.75f), (std::set<int>{2, 0, 3}));    // 0.9 crosses
  EXPECT_EQ(top_p(0.95f), (std::set<int>{0, 1, 2, 3})); // the last crosses
  EXPECT_EQ(top_p(1.0f), (std::set<int>{0, 1, 2, 3}));
  // The kept set is renormalized: 0.4 / 0.7 and 0.3 / 0.7.
  const int n = 100000;
  const auto counts = histogram(l, params(1.0f, 0, 0.65f), n, 16);
  EXPECT_LT(chi_square(counts, {3.0 / 7, 0, 4.0 / 7, 0}, n),
            chi_square_critical(1));
}

TEST(Sampler, TopPOnALargeVocabularyMatchesAFullSort) {
  // 30,000 tokens far down, 400 plausible ones: the nucleus needs the
  // quickselect, not just the small-set sort.
  const int64_t vocab = 30400;
  std::vector<float> l(vocab, -30.0f);
  Rng rng(17);
  std::vector<int32_t> plausible;
  for (int i = 0; i < 400; ++i) {
    const int32_t at = static_cast<int32_t>(rng.below(vocab));
    if (l[at] != -30.0f)
      continue;
    l[at] = rng.uniform() * 3.0f;
    plausible.push_back(at);
  }
  const std::vector<double> p = softmax(l, 1.0);
  std::vector<int32_t> order(vocab);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int32_t a, int32_t b) { return p[a] > p[b]; });
  // Choose top_p halfway between two cumulative sums: 150 tokens kept.
  double cum = 0;
  for (int i = 0; i < 149; ++i)
    cum += p[order[i]];
  const float top_p =
      static_cast<float>(cum + 0.5 * p[order[149]]); // crossing: token 150
  const std::set<int> nucleus(order.begin(), order.begin() + 150);
  const auto counts = histogram(l, params(1.0f, 0, top_p), 10000, 18);
  EXPECT_EQ(drawn(counts), nucleus);
}

TEST(Sampler, TopPAmongEqualProbabilitiesKeepsTheLowestIndices) {
  std::vector<float> l(300, 0.5f);
  // 0.505 of 300 equal tokens: 151.5, so 152 tokens, 0..151.
  const auto counts = histogram(l, params(1.0f, 0, 0.505f), 20000, 19);
  const std::set<int> kept = drawn(counts);
  EXPECT_EQ(kept.size(), 152u);
  EXPECT_EQ(*kept.rbegin(), 151);
}

TEST(Sampler, TopPCrossingInsideATieGroupKeepsItsLowestIndices) {
  // Three probability levels in random order; the nucleus ends inside the
  // middle level, where the lowest indices must be the ones kept.
  std::vector<float> l(300);
  Rng rng(24);
  for (float &x : l)
    x = 0.4f * static_cast<float>(rng.below(3));
  const std::vector<double> p = softmax(l, 1.0);
  std::vector<int32_t> order(l.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return p[a] > p[b]; });
  size_t j = 0; // the middle level starts at order[j]
  while (l[order[j]] == l[order[0]])
    ++j;
  const size_t keep = j + 20;
  double cum = 0;
  for (size_t i = 0; i + 1 < keep; ++i)
    cum += p[order[i]];
  const float top_p = static_cast<float>(cum + 0.5 * p[order[keep - 1]]);
  const std::set<int> want(order.begin(), order.begin() + keep);
  EXPECT_EQ(drawn(histogram(l, params(1.0f, 0, top_p), 30000, 25)), want);
}

TEST(Sampler, CombinedTopKTopPAndTemperature) {
  // top_k 5 keeps 3, 7, 0, 6, 1; at T = 0.5 their probabilities are about
  // 0.55, 0.20, 0.075, 0.041, 0.028 (renormalized: 0.61, 0.22, ...).
  const int n = 100000;
  std::vector<float> top(kTen.size(), -kInf);
  for (int i : {3, 7, 0, 6, 1})
    top[i] = kTen[i];
  std::vector<double> p = softmax(top, 0.5);
  // top_p 0.9: 3 and 7 hold ~0.86, 0 crosses.
  for (int i : {6, 1})
    p[i] = 0;
  const double kept = p[3] + p[7] + p[0];
  for (double &x : p)
    x /= kept;
  const auto counts = histogram(kTen, params(0.5f, 5, 0.9f), n, 20);
  EXPECT_LT(chi_square(counts, p, n), chi_square_critical(2));
}

TEST(Sampler, NaNAndInfiniteLogitsAreHandled) {
  std::vector<float> l = {kNaN, 1.0f, kNaN, 2.0f, -kInf};
  for (int k : {0, 2}) {
    const std::set<int> d = drawn(histogram(l, params(1.0f, k), 5000, 21));
    EXPECT_EQ(d, (std::set<int>{1, 3})) << "top_k " << k;
  }
  std::vector<float> inf = {1.0f, kInf, 3.0f, kInf};
  EXPECT_EQ(drawn(histogram(inf, params(1.0f), 100, 22)), (std::set<int>{1}));
  // A temperature so small its inverse overflows is greedy.
  EXPECT_EQ(drawn(histogram(kTen, params(1e-45f), 100, 23)),
            (std::set<int>{3}));
}

TEST(Sampler, SameSeedSameSamplesDifferentSeedDifferentSamples) {
  const std::vector<float> l = random_logits(5000, 3, 2.0f);
  const auto run = [&](uint64_t seed) {
    Sampler sampler;
    Rng rng(seed);
    std::vector<int32_t> out;
    for (int i = 0; i < 64; ++i) {
      std::vector<float> w = l;
      out.push_back(sampler.sample(w.data(), 5000, params(1.0f, 0, 0.9f), rng));
    }
    return out;
  };
  EXPECT_EQ(run(1), run(1));
  EXPECT_NE(run(1), run(2));
}

TEST(Sampler, EachSequenceSamplesTheSameWhateverItsBatch) {
  const int64_t vocab = 3000;
  const auto make = [&](int64_t id) {
    SamplingParams p = params(0.9f, id == 2 ? 50 : 0, id == 1 ? 0.8f : 1.0f);
    p.seed = 1000 + id;
    return std::make_unique<Sequence>(id, std::vector<int32_t>{1}, p, 4);
  };
  const std::vector<std::vector<float>> rows = {random_logits(vocab, 31),
                                                random_logits(vocab, 32),
                                                random_logits(vocab, 33)};
  // Sequence 0 alone, then in batches of different composition and order.
  const auto samples_of_0 = [&](std::vector<int64_t> batch_ids) {
    std::vector<std::unique_ptr<Sequence>> seqs;
    for (int64_t id : batch_ids)
      seqs.push_back(make(id));
    std::vector<Sequence *> ptrs;
    for (auto &s : seqs)
      ptrs.push_back(s.get());
    std::vector<int32_t> zero;
    for (int step = 0; step < 40; ++step) {
      std::vector<float> logits;
      for (int64_t id : batch_ids)
        logits.insert(logits.end(), rows[id].begin(), rows[id].end());
      std::vector<int32_t> out(ptrs.size());
      sample_batch(logits.data(), static_cast<int64_t>(ptrs.size()), vocab,
                   ptrs.data(), out.data());
      for (size_t i = 0; i < ptrs.size(); ++i)
        if (batch_ids[i] == 0)
          zero.push_back(out[i]);
    }
    return zero;
  };
  const std::vector<int32_t> alone = samples_of_0({0});
  EXPECT_EQ(samples_of_0({0, 1, 2}), alone);
  EXPECT_EQ(samples_of_0({2, 0}), alone);
  EXPECT_EQ(samples_of_0({1, 2, 0}), alone);
  EXPECT_GT(std::set<int32_t>(alone.begin(), alone.end()).size(), 5u);
}

TEST(SamplingParams, ValidateNamesTheFieldAndValue) {
  const auto error_of = [](SamplingParams p) -> std::string {
    try {
      validate(p);
    } catch (const Error &e) {
      return e.what();
    }
    return "(no error)";
  };
  SamplingParams ok;
  EXPECT_EQ(error_of(ok), "(no error)");
  SamplingParams p = ok;
  p.temperature = -0.5f;
  EXPECT_EQ(error_of(p), "sampling: temperature must be finite and >= 0, "
                         "got -0.5");
  p.temperature = kNaN;
  EXPECT_NE(error_of(p).find("temperature"), std::string::npos);
  p = ok;
  p.top_k = -1;
  EXPECT_EQ(error_of(p), "sampling: top_k must be >= 0 (0 turns it off), "
                         "got -1");
  p = ok;
  p.top_p = 0;
  EXPECT_EQ(error_of(p), "sampling: top_p must be in (0, 1], got 0");
  p.top_p = kNaN;
  EXPECT_NE(error_of(p).find("top_p"), std::string::npos);
  p = ok;
  p.max_tokens = 0;
  EXPECT_EQ(error_of(p), "sampling: max_tokens must be >= 1, got 0");
  p = ok;
  p.temperature = 0;
  p.top_p = 1;
  EXPECT_EQ(error_of(p), "(no error)");
}
