#include "counter.h"

#include <stdio.h>

int main(void) {
  printf("vowels %d\n", count_vowels("speed bump"));
  return 0;
}
