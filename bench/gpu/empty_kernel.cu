// The launch benchmark's device side (nvcc): a kernel that does nothing, so
// a loop of launches measures the host's cost per launch.
#include "empty_kernel.h"

namespace {
__global__ void empty_kernel() {}
} // namespace

int launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  return int(cudaGetLastError());
}
