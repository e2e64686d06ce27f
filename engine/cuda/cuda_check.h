// engine/cuda/cuda_check.h - every CUDA and cuBLAS status turned into an
// engine::Error that says what was being done, and for an allocation that
// failed, which setting to lower.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace engine::cuda {

/// Throws engine::Error("engine: cuda: <what>: <CUDA's message>") unless
/// status is cudaSuccess; out of memory adds the settings that size device
/// memory.
void check(cudaError_t status, const char *what);
void check(cublasStatus_t status, const char *what);

/// The last launch's error (launches report through cudaGetLastError).
void check_launch(const char *what);

} // namespace engine::cuda
