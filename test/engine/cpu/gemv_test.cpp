// test/engine/cpu/gemv_test.cpp - every gemv plan against an fp64 reference
// on odd shapes and tails, and the choice of plans by measurement: wisdom
// kept and reused, forced plans, bad settings and a corrupt wisdom file.
#include "engine/cpu/gemv_kernels.h"
#include "engine/cpu/gemv_tuning.h"
#include "engine/cpu/gemv_wisdom.h"
#include "engine/error.h"
#include "isa_test_util.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace engine {
namespace {

using test::random_floats;

struct Bf16Matrix {
  std::vector<uint16_t> w;
  std::vector<float> exact; // the bf16 values widened back
  int64_t rows, cols;
  Bf16Matrix(int64_t r, int64_t c, std::mt19937 &rng) : rows(r), cols(c) {
    std::vector<float> f = random_floats(size_t(r * c), rng);
    for (float v : f) {
      w.push_back(f32_to_bf16(v));
      exact.push_back(bf16_to_f32(w.back()));
    }
  }
  WeightMatrix matrix() const { return {DType::BF16, rows, cols, w.data()}; }
};

// Tolerance per output as a fraction of Σ|x·w|: the vdpbf16ps plans round x
// to bf16 (≤ 2⁻⁹ relative per element) and accumulate in fp32; the others
// multiply exact fp32 values and differ from fp64 only in the summation.
double tolerance(const GemvPlan &plan) {
  return plan.kernel->isa >= Isa::Avx512Bf16 ? 1.0 / 256 : 1e-5;
}

class EveryPlan : public testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    plan_ = find_gemv_plan(GetParam());
    ASSERT_NE(plan_, nullptr);
    if (plan_->kernel->isa > max_supported_isa())
      GTEST_SKIP() << GetParam() << " needs the "
                   << isa_name(plan_->kernel->isa) << " level; this CPU has "
                   << isa_name(max_supported_isa());
  }
  const GemvPlan *plan_ = nullptr;
};

TEST_P(EveryPlan, MatchesTheFp64ReferenceOnOddShapesAndTails) {
  std::mt19937 rng(3);
  // cols: below one vector, around the 8-, 16- and 32-wide steps, a model's;
  // rows: below, at and past each plan's rows per block and the split's
  // 64-row chunks; 1 to 3 threads.
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    for (int64_t rows : {1, 3, 8, 17, 130})
      for (int64_t cols : {1, 7, 15, 16, 17, 31, 33, 100, 1029}) {
        Bf16Matrix m(rows, cols, rng);
        std::vector<float> x = random_floats(size_t(cols), rng);
        // Poisoned, so an output a plan never writes cannot pass.
        std::vector<float> y(size_t(rows), NAN);
        run_gemv(pool, *plan_, {x.data(), m.w.data(), rows, cols, y.data()});
        for (int64_t r = 0; r < rows; ++r) {
          double ref = 0, magnitude = 0;
          for (int64_t k = 0; k < cols; ++k) {
            const double p =
                double(x[size_t(k)]) * m.exact[size_t(r * cols + k)];
            ref += p;
            magnitude += std::fabs(p);
          }
          ASSERT_NEAR(y[size_t(r)], ref, tolerance(*plan_) * magnitude + 1e-30)
              << GetParam() << " threads=" << threads << " rows=" << rows
              << " cols=" << cols << " at y[" << r << "]";
        }
      }
  }
}

TEST_P(EveryPlan, IsWhatMatmulRunsForOneRowWhenTheMatrixCarriesIt) {
  // ENGINE_CPU_ISA capped below the plan's level: matmul rightly runs the
  // capped level's own kernel instead (scripts/gpu-check.sh forces each).
  if (plan_->kernel->isa > active_isa())
    GTEST_SKIP() << GetParam() << " needs the " << isa_name(plan_->kernel->isa)
                 << " level; ENGINE_CPU_ISA caps it at "
                 << isa_name(active_isa());
  std::mt19937 rng(9);
  ThreadPool pool(2);
  Bf16Matrix m(70, 300, rng);
  std::vector<float> x = random_floats(300, rng);
  std::vector<float> direct(70, NAN), through(70, NAN);
  run_gemv(pool, *plan_, {x.data(), m.w.data(), 70, 300, direct.data()});
  WeightMatrix w = m.matrix();
  w.gemv = plan_;
  matmul(pool, x.data(), 1, w, through.data());
  EXPECT_EQ(direct, through);
}

std::vector<std::string> plan_names() {
  std::vector<std::string> names;
  for (const GemvPlan &p : all_gemv_plans())
    names.push_back(p.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Plans, EveryPlan, testing::ValuesIn(plan_names()),
                         [](const testing::TestParamInfo<std::string> &info) {
                           std::string s = info.param;
                           for (char &c : s)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return s;
                         });

TEST(GemvPlans, EachLevelRunsOnlyPlansItsInstructionsAllow) {
  for (Isa isa : test::available_isas()) {
    set_isa_cap(isa);
    for (const GemvPlan *p : runnable_gemv_plans())
      EXPECT_LE(int(p->kernel->isa), int(isa)) << p->name;
    if (isa >= Isa::Avx2) {
      ASSERT_NE(default_gemv_plan(), nullptr);
      EXPECT_LE(int(default_gemv_plan()->kernel->isa), int(isa));
    } else {
      EXPECT_EQ(default_gemv_plan(), nullptr);
    }
  }
  clear_isa_cap();
}

// A model's worth of one shape: enough matrices that measuring is cycling
// through memory, small enough for a test.
struct SmallModel {
  std::vector<Bf16Matrix> storage;
  std::vector<const WeightMatrix *> matrices;
  std::vector<WeightMatrix> views;
  SmallModel() {
    std::mt19937 rng(1);
    for (int i = 0; i < 6; ++i)
      storage.emplace_back(256, 512, rng);
    storage.emplace_back(64, 512, rng);
    for (const Bf16Matrix &m : storage)
      views.push_back(m.matrix());
    for (const WeightMatrix &w : views)
      matrices.push_back(&w);
  }
};

class GemvTuningTest : public testing::Test {
protected:
  void SetUp() override {
    if (max_supported_isa() < Isa::Avx2)
      GTEST_SKIP() << "no gemv plans below the avx2 level";
    dir_ = std::filesystem::temp_directory_path() /
           ("gemv-tuning-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    wisdom_ = (dir_ / "sub" / "wisdom.json").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  std::string wisdom_;
};

TEST_F(GemvTuningTest, MeasuresEachShapeKeepsTheWinnerAndReusesIt) {
  ThreadPool pool(2);
  SmallModel model;
  GemvTuning t;
  t.kernels = "measure";
  t.wisdom_path = wisdom_;
  t.budget_s = 5;          // a test on a busy machine still finishes measuring
  t.busy_host_cores = 1e9; // and keeps what it measured (ctest runs two)
  std::vector<GemvChoice> first = choose_gemv_plans(pool, model.matrices, t);
  ASSERT_EQ(first.size(), 2u);
  // The shape with more bytes comes first.
  EXPECT_EQ(first[0].rows, 256);
  EXPECT_EQ(first[0].matrices, 6);
  EXPECT_EQ(first[1].rows, 64);
  for (const GemvChoice &c : first) {
    EXPECT_EQ(c.how, "measured");
    ASSERT_NE(c.plan, nullptr);
    EXPECT_LE(int(c.plan->kernel->isa), int(active_isa()));
    EXPECT_GT(c.gb_s, 0);
    EXPECT_GT(c.default_gb_s, 0);
    EXPECT_GT(c.seconds, 0);
    // The default is replaced only by a plan measured faster than it.
    if (c.plan != default_gemv_plan())
      EXPECT_GT(c.gb_s, c.default_gb_s) << c.plan->name;
  }
  ASSERT_TRUE(std::filesystem::exists(wisdom_));

  t.kernels = "auto";
  std::vector<GemvChoice> again = choose_gemv_plans(pool, model.matrices, t);
  ASSERT_EQ(again.size(), 2u);
  for (size_t i = 0; i < again.size(); ++i) {
    EXPECT_EQ(again[i].how, "wisdom");
    EXPECT_EQ(again[i].plan, first[i].plan);
    EXPECT_EQ(again[i].seconds, 0);
  }

  // Plans measured on one kind of memory are not used on another: a model
  // this small is then not measured under "auto" at all.
  GemvTuning elsewhere = t;
  elsewhere.memory = "in 2 MiB pages";
  std::vector<GemvChoice> moved =
      choose_gemv_plans(pool, model.matrices, elsewhere);
  EXPECT_EQ(moved[0].how, "default (model fits in cache)");

  // Another thread count is another machine key: measured anew.
  ThreadPool one(1);
  std::vector<GemvChoice> other = choose_gemv_plans(one, model.matrices, t);
  EXPECT_EQ(other[0].how, "default (model fits in cache)");
}

TEST_F(GemvTuningTest, ACorruptWisdomFileIsMeasuredAgainAndReplaced) {
  std::filesystem::create_directories(dir_ / "sub");
  std::ofstream(wisdom_) << "{\"format\": \"perfcc engine gemv wi";
  ThreadPool pool(1);
  SmallModel model;
  GemvTuning t;
  t.kernels = "measure";
  t.wisdom_path = wisdom_;
  t.budget_s = 5;
  t.busy_host_cores = 1e9;
  testing::internal::CaptureStderr();
  std::vector<GemvChoice> c = choose_gemv_plans(pool, model.matrices, t);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("kernel wisdom " + wisdom_), std::string::npos) << err;
  // Said once, though save() reads the file again.
  EXPECT_EQ(err.find("kernel wisdom", err.find("kernel wisdom") + 1),
            std::string::npos)
      << err;
  EXPECT_EQ(c[0].how, "measured");
  nlohmann::json j = nlohmann::json::parse(std::ifstream(wisdom_));
  EXPECT_EQ(j["format"], "perfcc engine gemv wisdom 1");
  EXPECT_EQ(j["machines"][gemv_machine_key(1)]["256x512"]["plan"],
            c[0].plan->name);
}

TEST_F(GemvTuningTest, AWisdomEntryNamingAnUnknownPlanIsNotUsed) {
  GemvWisdom w(wisdom_, gemv_machine_key(1));
  w.put("256x512", {"no-such-plan", 1, 1});
  ASSERT_TRUE(w.save());
  ThreadPool pool(1);
  SmallModel model;
  GemvTuning t;
  t.wisdom_path = wisdom_;
  t.budget_s = 5;
  // "auto" on a model this small would not measure; the entry is unusable,
  // so the level's default runs.
  std::vector<GemvChoice> c = choose_gemv_plans(pool, model.matrices, t);
  EXPECT_EQ(c[0].plan, default_gemv_plan());
  EXPECT_EQ(c[0].how, "default (model fits in cache)");
}

TEST_F(GemvTuningTest, AForcedPlanRunsEveryShapeAndMeasuresNothing) {
  ThreadPool pool(2);
  SmallModel model;
  GemvTuning t;
  t.kernels = "avx2w-r4u1-pf1-dyn";
  t.wisdom_path = wisdom_;
  for (const GemvChoice &c : choose_gemv_plans(pool, model.matrices, t)) {
    EXPECT_EQ(c.plan, find_gemv_plan("avx2w-r4u1-pf1-dyn"));
    EXPECT_EQ(c.how, "forced");
  }
  t.kernels = "default";
  for (const GemvChoice &c : choose_gemv_plans(pool, model.matrices, t))
    EXPECT_EQ(c.plan, default_gemv_plan());
  EXPECT_FALSE(std::filesystem::exists(wisdom_));
}

TEST_F(GemvTuningTest, WhatWasMeasuredOnABusyHostIsUsedNotKept) {
  ThreadPool pool(1);
  SmallModel model;
  GemvTuning t;
  t.kernels = "measure";
  t.wisdom_path = wisdom_;
  t.budget_s = 5;
  t.busy_host_cores = 0; // any load at all counts as busy
  for (const GemvChoice &c : choose_gemv_plans(pool, model.matrices, t)) {
    EXPECT_EQ(c.how.rfind("measured (not kept: other processes used ", 0), 0u)
        << c.how;
    ASSERT_NE(c.plan, nullptr);
    EXPECT_GT(c.gb_s, 0);
  }
  EXPECT_FALSE(std::filesystem::exists(wisdom_));
}

TEST_F(GemvTuningTest, NoBudgetKeepsTheDefault) {
  ThreadPool pool(1);
  SmallModel model;
  GemvTuning t;
  t.kernels = "measure";
  t.budget_s = 0;
  for (const GemvChoice &c : choose_gemv_plans(pool, model.matrices, t)) {
    EXPECT_EQ(c.plan, default_gemv_plan());
    EXPECT_EQ(c.how, "default (budget spent)");
  }
}

// Choices as a load whose budget ran out leaves them: the shapes it did not
// reach run a plan measured for another, the same row length first.
TEST(GemvBorrowing, ShapesTheBudgetMissedRunAPlanMeasuredForAnother) {
  const GemvPlan *a = &all_gemv_plans()[0], *b = &all_gemv_plans()[1],
                 *fallback = &all_gemv_plans()[2];
  auto choice = [&](int64_t rows, int64_t cols, int64_t n, const GemvPlan *p,
                    const char *how, double gb_s) {
    GemvChoice c;
    c.rows = rows;
    c.cols = cols;
    c.matrices = n;
    c.plan = p;
    c.how = how;
    c.gb_s = gb_s;
    return c;
  };
  std::vector<GemvChoice> choices = {
      choice(3072, 1024, 56, a, "measured", 30),
      choice(151936, 1024, 1, b, "measured in part (budget spent)", 28),
      choice(1024, 3072, 28, b, "wisdom", 31),
      choice(1024, 1024, 56, fallback, "default (budget spent)", 0),
      choice(2048, 4096, 28, fallback, "default (budget spent)", 0),
      choice(512, 3072, 4, fallback, "default (budget spent)", 0),
      choice(64, 64, 1, fallback, "default (model fits in cache)", 0),
  };
  borrow_measured_plans(choices);
  // 1024 columns: the measured 1024-column shape with the most bytes.
  EXPECT_EQ(choices[3].plan, a);
  EXPECT_EQ(choices[3].how, "like 3072x1024 (budget spent)");
  EXPECT_EQ(choices[3].gb_s, 0); // not measured for this shape
  // No other shape has 4096 columns: the most bytes measured.
  EXPECT_EQ(choices[4].plan, a);
  EXPECT_EQ(choices[4].how, "like 3072x1024 (budget spent)");
  // A plan from the wisdom file was measured too.
  EXPECT_EQ(choices[5].plan, b);
  EXPECT_EQ(choices[5].how, "like 1024x3072 (budget spent)");
  // Only what the budget missed is changed.
  EXPECT_EQ(choices[6].plan, fallback);
  EXPECT_EQ(choices[1].plan, b);

  // Nothing measured anywhere: the default stays.
  std::vector<GemvChoice> none = {
      choice(1024, 1024, 56, fallback, "default (budget spent)", 0)};
  borrow_measured_plans(none);
  EXPECT_EQ(none[0].plan, fallback);
  EXPECT_EQ(none[0].how, "default (budget spent)");
}

TEST_F(GemvTuningTest, BadSettingsAreErrorsThatNameThem) {
  ThreadPool pool(1);
  SmallModel model;
  GemvTuning t;
  t.kernels = "fastest";
  try {
    choose_gemv_plans(pool, model.matrices, t);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("unknown value 'fastest'"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("avx2-r2u1-pf1"), std::string::npos);
  }
  // A plan above the active level.
  set_isa_cap(Isa::Avx2);
  t.kernels = "bf16dp512-r8u1-pf1";
  EXPECT_THROW(choose_gemv_plans(pool, model.matrices, t), Error);
  clear_isa_cap();
}

} // namespace
} // namespace engine
