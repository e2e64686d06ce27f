//===- probe_cost.cpp - what a probe pair costs on this machine -----------===//
//
// perfcc-probe-cost: built with perfcc like any user program, with probes in
// one empty function only. It times calls of that function against calls of
// an identical function without probes, in the mode the runtime was given
// (PERFCC_MODE), and prints
//
//   probe_pair_ns 23.41 plain_call_ns 0.62 mode summary
//
// the median, over 15 alternating rounds of 200,000 calls, of what an
// enter/exit pair adds to a call. It is a lower bound of a probe's cost in a
// real program (here the probe's data stays in cache), and what
// `perfctl filter` budgets with.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

namespace probe_cost {
__attribute__((noinline)) void probed() { asm volatile(""); }
__attribute__((noinline)) void plain() { asm volatile(""); }
} // namespace probe_cost

namespace {

constexpr int Rounds = 15;
constexpr int Calls = 200000;

double nowNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) * 1e9 + double(t.tv_nsec);
}

template <typename F> double nsPerCall(F call) {
  double start = nowNs();
  for (int i = 0; i < Calls; ++i)
    call();
  return (nowNs() - start) / Calls;
}

} // namespace

int main() {
  std::vector<double> added, plain;
  nsPerCall(probe_cost::probed); // warm the probe's first-call path
  for (int r = 0; r < Rounds; ++r) {
    double withProbes = nsPerCall(probe_cost::probed);
    double without = nsPerCall(probe_cost::plain);
    added.push_back(std::max(0.0, withProbes - without));
    plain.push_back(without);
  }
  std::nth_element(added.begin(), added.begin() + Rounds / 2, added.end());
  std::nth_element(plain.begin(), plain.begin() + Rounds / 2, plain.end());
  const char *mode = std::getenv("PERFCC_MODE");
  std::printf("probe_pair_ns %.2f plain_call_ns %.2f mode %s\n",
              added[Rounds / 2], plain[Rounds / 2], mode ? mode : "trace");
  return 0;
}
