// Prints what the CUDA driver would read at cuInit.
#include <cstdio>
#include <cstdlib>

int main() {
  const char *v = std::getenv("CUDA_INJECTION64_PATH");
  std::printf("injection=%s\n", v ? v : "(unset)");
  return 0;
}
