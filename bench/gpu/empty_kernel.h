// Launches an empty kernel on \p stream; returns a cudaError_t.
#ifndef PERFCC_BENCH_GPU_EMPTY_KERNEL_H
#define PERFCC_BENCH_GPU_EMPTY_KERNEL_H
#include <cuda_runtime.h>
int launch_empty(cudaStream_t stream);
#endif
