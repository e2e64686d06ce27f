// main() of the engine's GPU tests: without a usable GPU, one line saying
// why and exit status 77, which ctest reports as skipped (SKIP_RETURN_CODE).
#include <cuda_runtime_api.h>

#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char **argv) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    std::printf("skipped: no CUDA GPU here (%s)\n",
                status != cudaSuccess ? cudaGetErrorString(status)
                                      : "no device found");
    return 77;
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
