// Launch functions for the example's kernels (kernels.cu, built by nvcc).
#ifndef PERFCC_EXAMPLES_CUDA_KERNELS_H
#define PERFCC_EXAMPLES_CUDA_KERNELS_H

#include <cuda_runtime.h>

/// A one-block kernel that runs for about \p ns. Returns a cudaError_t.
int launch_busy(float *out, unsigned long long ns, cudaStream_t stream);

/// data[i] *= factor for i < n.
int launch_scale(float *data, int n, float factor, cudaStream_t stream);

#endif
