// Counts words with a progress point; `count_word` is probed.
#include <perf/perf.h>

#include <cstdio>
#include <cstring>

__attribute__((noinline)) int count_word(const char *w) {
  PERF_PROGRESS("word");
  return int(std::strlen(w)) > 3;
}

int main() {
  const char *words[] = {"compiler", "assisted", "profiling", "of", "code"};
  int longer = 0;
  for (const char *w : words)
    longer += count_word(w);
  std::printf("long words %d\n", longer);
}
