#include <stdio.h>

int main(void) {
  printf("hello from C\n");
  return 0;
}
