// Stress: THREADS threads each make ROUNDS rounds of calls; in every round
// outer() calls middle() calls leaf() three times, and every 7th round the
// last leaf throws (caught in outer, so middle and leaf unwind), every 11th
// round it longjmps to outer instead (middle and leaf are left without an
// exit: the runtime closes them as abandoned at outer's resync or exit).
// Every call is counted exactly once; the counts are known in advance and
// printed for the checker: THREADS*ROUNDS outer and middle calls, three times
// as many leaf calls.
// Usage: threads_exceptions_longjmp [THREADS] [ROUNDS]
#include <perf/perf.h>

#include <atomic>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

namespace stress {

thread_local std::jmp_buf *escape;
std::atomic<long> work{0};

__attribute__((noinline)) void leaf(long round, int i) {
  work.fetch_add(1, std::memory_order_relaxed);
  if (i == 2 && round % 7 == 0)
    throw std::runtime_error("round");
  if (i == 2 && round % 11 == 0)
    std::longjmp(*escape, 1);
}

__attribute__((noinline)) void middle(long round) {
  for (int i = 0; i < 3; ++i)
    leaf(round, i);
}

__attribute__((noinline)) void outer(long round) {
  std::jmp_buf here;
  escape = &here;
  if (setjmp(here) != 0)
    return;
  try {
    middle(round);
  } catch (const std::runtime_error &) {
  }
}

} // namespace stress

int main(int argc, char **argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 64;
  long rounds = argc > 2 ? std::atol(argv[2]) : 1000000;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([rounds] {
      perf_thread_name("worker");
      for (long r = 1; r <= rounds; ++r)
        stress::outer(r);
    });
  for (std::thread &t : pool)
    t.join();
  long calls = long(threads) * rounds;
  std::printf("outer %ld middle %ld leaf %ld work %ld\n", calls, calls,
              3 * calls, stress::work.load());
  return 0;
}
