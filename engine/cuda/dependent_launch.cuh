// engine/cuda/dependent_launch.cuh - launching a kernel as a programmatic
// dependent of the one ahead of it in the stream, and the two instructions
// such a kernel uses (see dependent_launch.h for why).
//
// The contract, for every kernel launched with launch_dependent: it calls
// wait_for_previous_kernel() before it reads anything an earlier kernel
// writes or writes anything an earlier kernel reads. What overlaps the
// kernel ahead is the launch itself and the blocks' start. Since each kernel
// passes its wait only once the one ahead has finished, and that one only
// once its own predecessor had, the order of the whole chain holds.
#pragma once

#include "engine/cuda/dependent_launch.h"

#include <cuda_runtime.h>

#include <utility>

namespace engine::cuda {

/// Blocks until the kernel ahead in the stream has finished and its writes
/// are visible; then lets the next kernel's blocks onto the GPU (they wait
/// in turn). Nothing happens when the kernel was launched plainly.
__device__ __forceinline__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// kernel<<<grid, block, shared, stream>>>(args...), allowed to start before
/// the kernel ahead of it finishes when dependent_launch_now(). Launch
/// errors are left for cudaGetLastError, as with <<<>>>.
template <typename... Params, typename... Args>
void launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block,
                      size_t shared, cudaStream_t stream, Args &&...args) {
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  config.attrs = attribute;
  config.numAttrs = dependent_launch_now() ? 1 : 0;
  (void)cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

} // namespace engine::cuda
