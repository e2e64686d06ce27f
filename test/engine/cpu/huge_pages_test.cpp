// HugePageBuffer: 2 MiB-aligned anonymous memory asked to be backed by huge
// pages; whether the kernel grants them is its own choice (huge_bytes says).
#include "engine/cpu/huge_pages.h"

#include "engine/error.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>
#include <vector>

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

// copy_in_parallel: every piece lands at its offset whatever the threads,
// windows and alignment; bytes between pieces are left alone.
TEST(CopyInParallel, EveryPieceLandsWhereItGoesAndGapsStayAsTheyWere) {
  std::mt19937 rng(7);
  std::vector<unsigned char> src(200000);
  for (unsigned char &c : src)
    c = static_cast<unsigned char>(rng());
  // Pieces of odd sizes and gaps, one piece from the source's middle.
  std::vector<engine::CopyPiece> pieces;
  size_t to = 0, from = 0;
  for (size_t bytes : {1u, 4095u, 4097u, 12345u, 64u, 30000u, 9000u}) {
    pieces.push_back({src.data() + from, to, bytes});
    from += bytes + 17;
    to += bytes + 100; // a gap after each
  }
  for (int threads : {1, 2, 3, 5}) {
    engine::ThreadPool pool(threads);
    for (size_t window : {size_t(4096), size_t(8192), size_t(1) << 20}) {
      std::vector<char> dest(to, char(0xEE));
      engine::ParallelCopyOptions how;
      how.window = window;
      how.align = 4096;
      engine::copy_in_parallel(pool, dest.data(), pieces, how);
      size_t at = 0;
      for (const engine::CopyPiece &p : pieces) {
        for (; at < p.to; ++at)
          ASSERT_EQ(char(0xEE), dest[at]) << "gap byte " << at;
        ASSERT_EQ(0, std::memcmp(dest.data() + p.to, p.from, p.bytes))
            << threads << " threads, window " << window;
        at = p.to + p.bytes;
      }
    }
  }
}

TEST(CopyInParallel, AWindowNotAMultipleOfTheAlignmentIsAnError) {
  engine::ThreadPool pool(2);
  std::vector<char> src(10), dest(10);
  engine::ParallelCopyOptions how;
  how.window = 6000;
  how.align = 4096;
  EXPECT_THROW(engine::copy_in_parallel(pool, dest.data(),
                                        {{src.data(), 0, src.size()}}, how),
               engine::Error);
}

namespace {
// Kilobytes of the mapping at `addr` this process has mapped (its Rss line
// in /proc/self/smaps); -1 if it is not found.
long mapped_kib(const void *addr) {
  std::ifstream smaps("/proc/self/smaps");
  char start[32];
  std::snprintf(start, sizeof start, "%lx-", (unsigned long)uintptr_t(addr));
  bool in = false;
  for (std::string line; std::getline(smaps, line);) {
    if (line.rfind(start, 0) == 0)
      in = true;
    else if (in && line.rfind("Rss:", 0) == 0)
      return std::stol(line.substr(4));
  }
  return -1;
}
} // namespace

// From a file mapping with drop_file_pages: the copy is the file's bytes,
// the pages copied leave this process, all but those two pieces share (one
// page here), and the mapping still reads as the file.
TEST(CopyInParallel, DroppedFilePagesLeaveTheProcessAndStillReadAsTheFile) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const size_t size = page * 40;
  std::vector<unsigned char> bytes(size);
  std::mt19937 rng(11);
  for (unsigned char &c : bytes)
    c = static_cast<unsigned char>(rng());
  char path[] = "/tmp/copy_in_parallel_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  unlink(path);
  ASSERT_EQ(ssize_t(size), write(fd, bytes.data(), size));
  void *map = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ASSERT_NE(MAP_FAILED, map);
  const char *file = static_cast<const char *>(map);
  volatile char sum = 0;
  for (size_t i = 0; i < size; i += page)
    sum = char(sum + file[i]);
  ASSERT_EQ(long(size / 1024), mapped_kib(map));
  // Three pieces, the boundaries inside pages 10 and 25.
  const size_t a = page * 10 + 50, b = page * 25 + 7;
  const std::vector<engine::CopyPiece> pieces = {
      {file, 0, a}, {file + a, a, b - a}, {file + b, b, size - b}};
  engine::ThreadPool pool(2);
  std::vector<char> dest(size);
  engine::ParallelCopyOptions how;
  how.window = page * 8;
  how.align = page;
  how.drop_file_pages = true;
  engine::copy_in_parallel(pool, dest.data(), pieces, how);
  EXPECT_EQ(0, std::memcmp(dest.data(), bytes.data(), size));
  EXPECT_EQ(long(2 * page / 1024), mapped_kib(map));
  EXPECT_EQ(0, std::memcmp(file, bytes.data(), size));
  munmap(map, size);
  close(fd);
}
