// test/engine/cpu/isa_test_util.h - runs a test once per instruction-set level
// this machine supports, by capping the level through the API.
#pragma once

#include "engine/cpu/cpu_features.h"

#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

namespace engine::test {

/// Every level up to the highest this machine supports.
inline std::vector<Isa> available_isas() {
  std::vector<Isa> levels;
  for (Isa isa :
       {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Avx512Bf16, Isa::Amx})
    if (int(isa) <= int(max_supported_isa()))
      levels.push_back(isa);
  return levels;
}

inline std::string isa_param_name(const testing::TestParamInfo<Isa> &info) {
  return std::string(isa_name(info.param));
}

/// A fixture whose tests run with the level capped to GetParam().
class PerIsa : public testing::TestWithParam<Isa> {
protected:
  void SetUp() override { set_isa_cap(GetParam()); }
  void TearDown() override { clear_isa_cap(); }
};

inline std::vector<float> random_floats(size_t n, std::mt19937 &rng,
                                        float lo = -1.0f, float hi = 1.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &f : v)
    f = dist(rng);
  return v;
}

} // namespace engine::test
