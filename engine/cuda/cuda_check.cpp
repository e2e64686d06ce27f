// engine/cuda/cuda_check.cpp - CUDA and cuBLAS statuses as engine::Error.
#include "engine/cuda/cuda_check.h"

#include "engine/error.h"

#include <string>

namespace engine::cuda {

namespace {
[[noreturn]] void fail(const char *what, const std::string &why, bool oom) {
  std::string message = std::string("engine: cuda: ") + what + ": " + why;
  if (oom)
    message += " (lower gpu_memory_utilization, max_num_batched_tokens or "
               "max_num_seqs, or free the GPU)";
  throw Error(message);
}
} // namespace

void check(cudaError_t status, const char *what) {
  if (status == cudaSuccess)
    return;
  // Clear it, or the next launch check would report it again (a sticky
  // error, one that broke the context, stays whatever is done here).
  cudaGetLastError();
  fail(what, cudaGetErrorString(status), status == cudaErrorMemoryAllocation);
}

void check(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    fail(what, cublasGetStatusString(status),
         status == CUBLAS_STATUS_ALLOC_FAILED);
}

void check_launch(const char *what) { check(cudaGetLastError(), what); }

} // namespace engine::cuda
