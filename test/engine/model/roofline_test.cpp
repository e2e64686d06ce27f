// test/engine/model/roofline_test.cpp - the bytes and operations of a
// forward pass, from a golden fixture's real checkpoint, against sums done
// by hand from its shape (gqa2_headdim32_tied_f32: vocab 256, hidden 32,
// intermediate 80, 2 layers, 4 query heads and 2 KV heads of 32, tied head,
// f32 weights).
#include "engine/roofline.h"

#include "engine/error.h"

#include <gtest/gtest.h>

#include <string>

namespace engine {
namespace {

const std::string kModel = std::string(GOLDEN_DIR) + "/gqa2_headdim32_tied_f32";

TEST(RooflineTest, CostsOfTheGoldenModelAddUpByHand) {
  const ModelConfig config = load_model_config(kModel);
  const Checkpoint checkpoint(kModel);
  const ModelCost m = model_cost(config, checkpoint);
  // Per layer: q 128×32, k and v 64×32, o 32×128, gate and up 80×32, down
  // 32×80; then the tied head, 256×32.
  const double per_layer = 4096 + 2048 + 2048 + 4096 + 3 * 2560;
  EXPECT_DOUBLE_EQ(m.matrix_params, 2 * per_layer + 8192);
  EXPECT_DOUBLE_EQ(m.head_params, 8192);
  EXPECT_DOUBLE_EQ(m.matrix_bytes, 4 * m.matrix_params); // f32
  // K and V, 2 layers × 2 KV heads × 32, f32 (the CPU keeps f32 weights'
  // cache in f32); bf16 when the backend says so.
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_position, 2 * 2 * 2 * 32 * 4);
  EXPECT_DOUBLE_EQ(model_cost(config, checkpoint, 2).kv_bytes_per_position,
                   2 * 2 * 2 * 32 * 2);
  // q·k and p·v: 2 layers × 4 heads × 32 × 2 operations × 2.
  EXPECT_DOUBLE_EQ(m.attention_flops_per_position, 1024);

  const WorkCost step = decode_step_cost(m, 3, 10);
  EXPECT_DOUBLE_EQ(step.bytes, m.matrix_bytes + 3 * 10 * 1024);
  EXPECT_DOUBLE_EQ(step.flops, 3 * (2 * m.matrix_params + 10 * 1024));
  const WorkCost prefill = prefill_cost(m, 3);
  EXPECT_DOUBLE_EQ(prefill.bytes, m.matrix_bytes + 3 * 1024);
  // Each token through every layer, the last one through the head.
  EXPECT_DOUBLE_EQ(prefill.flops, 3 * 2 * 2 * per_layer + 2 * 8192 + 1024 * 6);
}

TEST(RooflineTest, UntiedHeadIsItsOwnMatrix) {
  const std::string model =
      std::string(GOLDEN_DIR) + "/gqa4_hidden48_untied_bf16";
  const ModelConfig config = load_model_config(model);
  const ModelCost m = model_cost(config, Checkpoint(model));
  // vocab 384 × hidden 48 for the head, bf16 everywhere.
  EXPECT_DOUBLE_EQ(m.matrix_bytes, 2 * m.matrix_params);
  EXPECT_GT(m.matrix_params, 384 * 48);
  EXPECT_DOUBLE_EQ(m.head_params, 384 * 48);
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_position, 3 * 2 * 1 * 16 * 2);
}

} // namespace
} // namespace engine
