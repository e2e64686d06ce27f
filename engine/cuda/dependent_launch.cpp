// engine/cuda/dependent_launch.cpp - the programmatic dependent launch
// setting: the GPU's compute capability and ENGINE_CUDA_PDL.
#include "engine/cuda/dependent_launch.h"

#include "engine/env_switch.h"

#include <cuda_runtime_api.h>

namespace engine::cuda {

namespace {
bool decide() {
  const bool wanted = env_switch(
      "ENGINE_CUDA_PDL", true,
      "0 (kernels wait for the one ahead to finish before they launch) or 1 "
      "(the default)");
  int device = 0, major = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                             device) != cudaSuccess)
    return false;
  return wanted && major >= 9; // griddepcontrol is sm_90 and later
}
} // namespace

bool dependent_launch_enabled() {
  static const bool enabled = decide();
  return enabled;
}

namespace {
thread_local bool in_decode = false;
}

bool dependent_launch_now() { return in_decode && dependent_launch_enabled(); }

DecodeLaunches::DecodeLaunches(bool decode) : previous_(in_decode) {
  in_decode = decode;
}

DecodeLaunches::~DecodeLaunches() { in_decode = previous_; }

} // namespace engine::cuda
