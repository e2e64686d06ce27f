// engine/cuda/dependent_launch.h - whether the engine's kernels use Hopper's
// programmatic dependent launch: each kernel is let onto the GPU while the
// kernel ahead of it in the stream is still running, and waits inside (in
// dependent_launch.cuh's wait_for_previous_kernel) before touching what that
// kernel writes. A decode step at batch 1 is about 230 small kernels, and
// each one's launch and ramp-up otherwise sits between two others: on the
// H200 it took batch-1 decode from 976 to 1,022 tok/s.
#pragma once

namespace engine::cuda {

/// True on a GPU of compute capability 9.0 or later unless ENGINE_CUDA_PDL=0
/// (for measuring what it buys). Read once. Throws engine::Error when
/// ENGINE_CUDA_PDL is set to anything but 0 or 1.
bool dependent_launch_enabled();

/// Whether launches made now use it: inside a DecodeLaunches scope, when
/// enabled. Prefill is left out: there, between cuBLAS's GEMMs, it cost a
/// fifth of pp512 on the H200 (117k against 144k tok/s; likely its blocks,
/// waiting, share the SMs with the GEMM ahead).
bool dependent_launch_now();

/// Marks the launches of a decode step (one thread launches them all).
class DecodeLaunches {
public:
  explicit DecodeLaunches(bool decode);
  ~DecodeLaunches();
  DecodeLaunches(const DecodeLaunches &) = delete;
  DecodeLaunches &operator=(const DecodeLaunches &) = delete;

private:
  bool previous_;
};

} // namespace engine::cuda
