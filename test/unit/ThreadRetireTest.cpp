// Exited threads folded into groups (perfrt_retire.h): past the first few
// kept whole, each exited thread's aggregates move into its name's group,
// exactly, its memory goes back, and the next thread to start reuses its
// state, clean. Each test runs in a child process: the states it makes are
// the process's for good.
#include "perfrt_retire.h"
#include "perfrt_thread.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace perfrt;

namespace {

constexpr uint32_t Fn = 7;

/// A thread named \p name that makes \p calls calls of Fn and ends.
ThreadState *runThread(const char *name, uint64_t calls) {
  ThreadState *state = nullptr;
  std::thread([&] {
    ThreadState *t = createThreadState();
    setThreadName(t, name);
    t->namedByApi = 1; // its exit keeps the name
    for (uint64_t i = 0; i < calls; ++i)
      t->stats.get(Fn, t->arena)->add(100 + i, 50);
    ++t->droppedSpans;
    state = t;
  }).join();
  return state;
}

/// Retires until \p want states are, or a second passes: the kernel may
/// still list a joined thread for a moment.
unsigned retireAll(uint32_t keep, unsigned want) {
  unsigned retired = 0;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (retired < want && std::chrono::steady_clock::now() < until)
    retired += retireExitedThreads(keep);
  return retired;
}

ThreadPhase phaseOf(const ThreadState *t) {
  return ThreadPhase(t->phase.load());
}

bool foldsExactly() {
  threadsInit();
  std::vector<ThreadState *> states;
  uint64_t calls = 0;
  for (uint64_t i = 1; i <= 6; ++i) {
    states.push_back(runThread(i % 3 ? "worker" : "io", i * 10));
    calls += i * 10;
  }
  // Two kept whole; four folded: into "worker" and "io".
  if (retireAll(2, 4) != 4)
    return false;
  uint64_t seen = 0, dropped = 0, folded = 0, groups = 0, kept = 0;
  for (ThreadState *t = allThreads(); t; t = t->next) {
    const FnStats *s = t->spanStats.find(Fn);
    const FnStats *own = t->stats.find(Fn);
    seen += (s ? s->calls : 0) + (own ? own->calls : 0);
    dropped += t->droppedSpans;
    switch (phaseOf(t)) {
    case ThreadPhase::Group:
      ++groups;
      folded += t->foldedThreads;
      // A group's histogram is its threads' together: calls add up.
      if (!s || s->inclMax < s->inclMin)
        return false;
      break;
    case ThreadPhase::Kept:
      ++kept;
      break;
    case ThreadPhase::Retired:
      if (t->stats.find(Fn) || t->spanStats.find(Fn) || t->droppedSpans ||
          t->name[0])
        return false; // given back, and nothing counted twice
      break;
    default:
      return false;
    }
  }
  std::set<std::string> named;
  static std::vector<std::pair<uint32_t, std::string>> retiredNames;
  forEachRetiredThread([](uint32_t tid, const char *name) {
    retiredNames.emplace_back(tid, name);
  });
  for (auto &[tid, name] : retiredNames)
    named.insert(name);
  return seen == calls && dropped == 6 && folded == 4 && kept == 2 &&
         groups == named.size() && retiredNames.size() == 4;
}

bool reusesCleanly() {
  threadsInit();
  std::set<ThreadState *> retired;
  for (int i = 0; i < 3; ++i)
    retired.insert(runThread("short", 5));
  if (retireAll(0, 3) != 3)
    return false;
  bool ok = true;
  std::thread([&] {
    ThreadState *t = createThreadState();
    ok = retired.count(t) && phaseOf(t) == ThreadPhase::Live &&
         !t->busy.load() && !t->dead && !t->depth && !t->stats.find(Fn) &&
         t->tid == uint32_t(gettid()) && t->name[0];
    // It records like any new thread, into memory of its own again.
    FnStats *s = t->stats.get(Fn, t->arena);
    ok = ok && s && s->calls == 0;
  }).join();
  return ok;
}

TEST(ThreadRetire, ExitedThreadsFoldIntoTheirGroupExactly) {
  EXPECT_EXIT(std::exit(foldsExactly() ? 0 : 1), ::testing::ExitedWithCode(0),
              "");
}

TEST(ThreadRetire, ANewThreadReusesARetiredStateClean) {
  EXPECT_EXIT(std::exit(reusesCleanly() ? 0 : 1), ::testing::ExitedWithCode(0),
              "");
}

} // namespace
