// HugePageBuffer: 2 MiB-aligned anonymous memory asked to be backed by huge
// pages; whether the kernel grants them is its own choice (huge_bytes says).
#include "engine/cpu/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <utility>

using engine::HugePageBuffer;

namespace {
constexpr size_t kHugePage = size_t(2) << 20;
}

TEST(HugePageBuffer, IsAlignedRoundedUpAndWritable) {
  HugePageBuffer b(3 * (size_t(1) << 20));
  ASSERT_NE(nullptr, b.data());
  EXPECT_EQ(2 * kHugePage, b.size());
  EXPECT_EQ(0u, uintptr_t(b.data()) % kHugePage);
  std::memset(b.data(), 0x5a, b.size());
  EXPECT_EQ(0x5a, static_cast<unsigned char>(b.data()[b.size() - 1]));
  // Touched: whatever the kernel granted lies within the buffer.
  EXPECT_LE(b.huge_bytes(), b.size());
}

TEST(HugePageBuffer, EmptyHasNoMemory) {
  HugePageBuffer b(0);
  EXPECT_EQ(nullptr, b.data());
  EXPECT_EQ(0u, b.size());
  EXPECT_EQ(0u, b.huge_bytes());
}

TEST(HugePageBuffer, MovesItsMemory) {
  HugePageBuffer a(kHugePage);
  char *p = a.data();
  std::memcpy(p, "weights", 8);
  HugePageBuffer b(std::move(a));
  EXPECT_EQ(nullptr, a.data());
  EXPECT_EQ(0u, a.size());
  EXPECT_EQ(p, b.data());
  EXPECT_STREQ("weights", b.data());
  HugePageBuffer c;
  c = std::move(b);
  EXPECT_EQ(p, c.data());
  EXPECT_EQ(nullptr, b.data());
}
