// test/engine/cpu/thread_pool_test.cpp - the fork-join pool: every thread
// runs each job once, errors come back to the caller, and long runs of jobs
// (spinning and sleeping workers alike) never deadlock.
#include "engine/cpu/thread_pool.h"
#include "engine/error.h"

#include <atomic>
#include <chrono>
#include <dirent.h>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

namespace engine {
namespace {

TEST(ThreadPool, EveryThreadRunsTheJobOnceAndTheCallerIsThreadZero) {
  ThreadPool pool(4);
  ASSERT_EQ(4, pool.size());
  std::atomic<int> calls[4] = {};
  std::thread::id ids[4];
  pool.run([&](int t, int n) {
    EXPECT_EQ(4, n);
    calls[t]++;
    ids[t] = std::this_thread::get_id();
  });
  std::set<std::thread::id> distinct;
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(1, calls[t].load()) << "thread " << t;
    distinct.insert(ids[t]);
  }
  EXPECT_EQ(std::this_thread::get_id(), ids[0]);
  EXPECT_EQ(4u, distinct.size());
}

TEST(ThreadPool, OneThreadPoolRunsOnTheCaller) {
  ThreadPool pool(1);
  std::thread::id id;
  pool.run([&](int t, int n) {
    EXPECT_EQ(0, t);
    EXPECT_EQ(1, n);
    id = std::this_thread::get_id();
  });
  EXPECT_EQ(std::this_thread::get_id(), id);
}

TEST(ThreadPool, RejectsFewerThanOneThread) {
  EXPECT_THROW(ThreadPool(0), Error);
}

TEST(ThreadPool, WorkerExceptionIsRethrownInTheCallerAfterAllFinish) {
  ThreadPool pool(3);
  std::atomic<int> finished{0};
  try {
    pool.run([&](int t, int) {
      if (t == 2)
        throw std::runtime_error("worker 2 failed");
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      finished++;
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ("worker 2 failed", e.what());
  }
  EXPECT_EQ(2, finished.load());
  // The pool is still usable afterwards.
  std::atomic<int> again{0};
  pool.run([&](int, int) { again++; });
  EXPECT_EQ(3, again.load());
}

TEST(ThreadPool, CallerExceptionWinsOverWorkerExceptions) {
  ThreadPool pool(3);
  try {
    pool.run([&](int t, int) { throw std::runtime_error(std::to_string(t)); });
    FAIL() << "no exception";
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ("0", e.what());
  }
}

TEST(ThreadPool, TensOfThousandsOfRunsCompleteWithSpinningWorkers) {
  ThreadPool pool(3);
  std::atomic<int64_t> sum{0};
  for (int i = 0; i < 30000; ++i)
    pool.run([&](int t, int) { sum += t + 1; });
  EXPECT_EQ(30000 * 6, sum.load());
}

TEST(ThreadPool, RunsCompleteWhenWorkersSleepBetweenJobs) {
  ThreadPool pool(3);
  pool.set_spin_us(0); // every wait goes to the futex
  std::atomic<int64_t> sum{0};
  for (int i = 0; i < 3000; ++i) {
    pool.run([&](int t, int) {
      if (i % 7 == 0 && t == 1)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      sum += t + 1;
    });
    if (i % 500 == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(3000 * 6, sum.load());
}

TEST(ThreadPool, NestedRunExecutesAllPartsOnTheCallingThread) {
  ThreadPool pool(2);
  std::atomic<int> inner{0};
  pool.run([&](int, int) {
    std::thread::id self = std::this_thread::get_id();
    pool.run([&](int, int n) {
      EXPECT_EQ(2, n);
      EXPECT_EQ(self, std::this_thread::get_id());
      inner++;
    });
  });
  EXPECT_EQ(4, inner.load());
}

TEST(ThreadPool, RunsFromSeveralThreadsAreSerialized) {
  ThreadPool pool(2);
  std::atomic<int> active{0}, overlap{0};
  std::atomic<int64_t> count{0};
  auto client = [&] {
    for (int i = 0; i < 2000; ++i)
      pool.run([&](int t, int) {
        if (t == 0 && active.fetch_add(1) != 0)
          overlap++;
        count++;
        if (t == 0)
          active--;
      });
  };
  std::thread a(client), b(client);
  a.join();
  b.join();
  EXPECT_EQ(0, overlap.load());
  EXPECT_EQ(2 * 2000 * 2, count.load());
}

TEST(ThreadPool, WorkersAreNamedForProfilers) {
  ThreadPool pool(3);
  pool.run([](int, int) {}); // workers name themselves before their first job
  std::set<std::string> names;
  DIR *dir = opendir("/proc/self/task");
  ASSERT_NE(nullptr, dir);
  while (dirent *e = readdir(dir)) {
    std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string name;
    if (std::getline(comm, name))
      names.insert(name);
  }
  closedir(dir);
  EXPECT_TRUE(names.count("engine-worker-1")) << "names seen: " << names.size();
  EXPECT_TRUE(names.count("engine-worker-2"));
}

TEST(SplitRange, ChunksCoverTheRangeInOrderOnAlignedBoundaries) {
  for (int64_t n : {0, 1, 5, 16, 17, 100, 1001})
    for (int parts : {1, 2, 3, 7})
      for (int64_t align : {1, 4, 16}) {
        int64_t expect = 0;
        for (int i = 0; i < parts; ++i) {
          Range r = split_range(n, i, parts, align);
          EXPECT_EQ(expect, r.begin) << n << " " << parts << " " << align;
          EXPECT_LE(r.begin, r.end);
          if (r.end != n)
            EXPECT_EQ(0, r.end % align);
          expect = r.end;
        }
        EXPECT_EQ(n, expect);
      }
}

TEST(SplitRange, ChunksDifferByAtMostOneBlock) {
  for (int i = 0; i < 3; ++i) {
    Range r = split_range(100, i, 3);
    EXPECT_GE(r.size(), 33);
    EXPECT_LE(r.size(), 34);
  }
}

} // namespace
} // namespace engine
