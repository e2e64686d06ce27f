// engine/random.h - the engine's pseudo-random generator: xoshiro256**
// seeded through splitmix64. Each Sequence owns one, so a request's samples
// depend only on its seed and its own logits, never on which other requests
// share the batch; it is small (32 bytes) and a draw costs a few cycles.
#pragma once

#include <cstdint>

namespace engine {

class Rng {
public:
  /// Seeds the four state words from `seed` with splitmix64, which spreads
  /// even nearby seeds (0, 1, 2...) into unrelated, never all-zero states.
  explicit Rng(uint64_t seed = 0) { reseed(seed); }

  /// Restarts the stream as if constructed with `seed`.
  void reseed(uint64_t seed) {
    for (uint64_t &word : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31);
    }
  }

  /// Next 64 uniformly distributed bits.
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform float in [0, 1): the top 24 bits, so every value is exact.
  float uniform() {
    return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f);
  }

  /// Uniform double in [0, 1): the top 53 bits.
  double uniform_double() {
    return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0);
  }

  /// Uniform integer in [0, n) for n >= 1 (Lemire's multiply-shift; the
  /// bias, at most n / 2^64, is irrelevant for simulations and tests).
  uint64_t below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >>
                                 64);
  }

private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t s_[4];
};

} // namespace engine
