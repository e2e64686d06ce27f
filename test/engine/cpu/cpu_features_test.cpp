// test/engine/cpu/cpu_features_test.cpp - instruction-set detection, the
// level cap (API and ENGINE_CPU_ISA) and the log line.
#include "engine/cpu/cpu_features.h"
#include "engine/error.h"

#include <cstdlib>
#include <gtest/gtest.h>

namespace engine {
namespace {

const Isa kAll[] = {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Avx512Bf16,
                    Isa::Amx};

class CpuFeatures : public testing::Test {
protected:
  void TearDown() override {
    unsetenv("ENGINE_CPU_ISA");
    clear_isa_cap();
  }
};

TEST_F(CpuFeatures, EveryLevelNameParsesBackToItsLevel) {
  for (Isa isa : kAll)
    EXPECT_EQ(isa, parse_isa(isa_name(isa)));
}

TEST_F(CpuFeatures, UnknownLevelNameIsAnErrorNamingItsSource) {
  try {
    parse_isa("avx9000", "ENGINE_CPU_ISA");
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string("ENGINE_CPU_ISA: unknown instruction set 'avx9000' "
                          "(expected scalar, avx2, avx512, avx512bf16 or amx)"),
              e.what());
  }
}

TEST_F(CpuFeatures, SupportedLevelIsConsistentWithTheDetectedFeatures) {
  const engine::CpuFeatures &f = cpu_features();
  Isa top = max_supported_isa();
  if (top >= Isa::Avx2)
    EXPECT_TRUE(f.avx2 && f.fma && f.f16c);
  if (top >= Isa::Avx512)
    EXPECT_TRUE(f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq);
  if (top >= Isa::Avx512Bf16)
    EXPECT_TRUE(f.avx512bf16);
  if (top == Isa::Amx)
    EXPECT_TRUE(f.amx_tile && f.amx_bf16 && f.amx_permitted);
  if (f.amx_tile && f.amx_bf16 && f.avx512bf16 && f.avx512f && f.avx512bw &&
      f.avx512vl && f.avx512dq && f.amx_permitted)
    EXPECT_EQ(Isa::Amx, top);
}

TEST_F(CpuFeatures, CapLowersTheActiveLevelButNeverRaisesIt) {
  for (Isa cap : kAll) {
    set_isa_cap(cap);
    EXPECT_EQ(int(cap) < int(max_supported_isa()) ? cap : max_supported_isa(),
              active_isa());
  }
  clear_isa_cap();
  EXPECT_EQ(max_supported_isa(), active_isa());
}

TEST_F(CpuFeatures, EnvironmentVariableCapsTheLevel) {
  setenv("ENGINE_CPU_ISA", "scalar", 1);
  clear_isa_cap();
  EXPECT_EQ(Isa::Scalar, active_isa());
  // The API cap wins over the environment.
  set_isa_cap(Isa::Avx2);
  EXPECT_EQ(int(max_supported_isa()) >= int(Isa::Avx2) ? Isa::Avx2
                                                       : Isa::Scalar,
            active_isa());
}

TEST_F(CpuFeatures, UnknownEnvironmentValueFailsEveryLevelQuery) {
  setenv("ENGINE_CPU_ISA", "sse9", 1);
  clear_isa_cap();
  EXPECT_THROW(active_isa(), Error);
  EXPECT_THROW(active_isa(), Error);
  EXPECT_THROW(cpu_description(2), Error);
}

TEST_F(CpuFeatures, DescriptionNamesTheLevelAndThreads) {
  set_isa_cap(Isa::Scalar);
  std::string text = cpu_description(2);
  EXPECT_EQ(0u, text.rfind("cpu: scalar", 0)) << text;
  EXPECT_NE(std::string::npos, text.find(", 2 threads")) << text;
  clear_isa_cap();
  if (max_supported_isa() == Isa::Amx)
    EXPECT_EQ("cpu: avx512bf16+amx, 1 thread", cpu_description(1));
}

} // namespace
} // namespace engine
