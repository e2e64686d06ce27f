// engine/cpu/machine_ceilings.h - what this machine can do at most, measured
// in the process that is being judged against it: the read bandwidth of
// main memory (a STREAM-like read-only sum over a buffer far larger than the
// caches) and the peak arithmetic rate of the kernels' instruction set, both
// on the same number of threads as the engine. engine-bench divides what a
// test achieved by these to report "% of the bandwidth bound" and MFU.
#pragma once

#include "engine/cpu/cpu_features.h"
#include "engine/cpu/thread_pool.h"

#include <cstdint>
#include <string>

namespace engine {

struct MachineCeilings {
  double read_bytes_per_s = 0; ///< best of several passes, all threads
  double peak_flops = 0;       ///< per second, all threads
  /// The instruction the peak was measured with ("avx2 vfmadd231ps f32").
  std::string peak_instruction;
  /// False at the amx level: the kernels' own peak (AMX tiles) is not
  /// measured, so an MFU against peak_flops would mean nothing.
  bool peak_is_the_kernels = true;
  int threads = 0;
};

/// Measures both on every thread of `pool` (about half a second; allocates
/// and touches `buffer_bytes` of memory for the bandwidth pass). `isa` picks
/// the peak's instruction: f32 FMA at the avx2 and avx512 levels, vdpbf16ps
/// at avx512bf16 and amx (AMX's own tile rate is not measured, so at amx
/// there is no MFU: peak_is_the_kernels is false). Throws engine::Error when
/// buffer_bytes is under 64 MiB.
MachineCeilings measure_machine_ceilings(ThreadPool &pool, Isa isa,
                                         int64_t buffer_bytes = 512 << 20);

namespace cpu_detail {
/// The read-only sum over [data, data + bytes) (bytes a multiple of 256,
/// data 64-byte aligned), as floats: the bandwidth pass's kernel, exposed
/// so a test can check it reads every byte.
double read_sum(const float *data, int64_t bytes, Isa isa);
/// Runs `iterations` rounds of the peak loop on this thread; returns the
/// floating-point operations done (the loop's result is kept alive by
/// adding it to `sink`).
double peak_loop(Isa isa, int64_t iterations, float *sink);
} // namespace cpu_detail

} // namespace engine
