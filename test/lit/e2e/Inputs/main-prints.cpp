// A program whose main prints at once: a run-time setting that is refused
// must stop it before this line appears. Used by the bad-setting tests.
#include <cstdio>

__attribute__((noinline)) int work(int v) { return v + 1; }

int main() {
  std::puts("main ran");
  return work(0) - 1;
}
