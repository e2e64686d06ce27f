#include "counter.h"

int count_vowels(const char *text) {
  int n = 0;
  for (; *text; ++text)
    for (const char *v = "aeiou"; *v; ++v)
      n += *text == *v;
  return n;
}
