// engine/cpu/cpu_features.h - which SIMD instruction sets the CPU kernels may
// use.
//
// Kernels for several instruction sets live in one binary; this file detects
// at run time what the processor and the operating system support (cpuid,
// xgetbv, and for AMX the Linux permission to use tile data) and exposes one
// ordered "level" that picks the kernels. The level can be capped, by the
// ENGINE_CPU_ISA environment variable or by set_isa_cap(), to compare levels
// and to test every kernel on one machine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace engine {

/// Instruction-set levels, each including the ones before it.
///   Scalar      portable C++ (any x86-64)
///   Avx2        AVX2 + FMA + F16C
///   Avx512      AVX-512 F/BW/VL/DQ
///   Avx512Bf16  + AVX512-BF16 (vdpbf16ps)
///   Amx         + AMX-TILE/AMX-BF16 (tdpbf16ps), permitted by the kernel
enum class Isa { Scalar, Avx2, Avx512, Avx512Bf16, Amx };

/// What the processor and the operating system support.
struct CpuFeatures {
  bool avx2 = false, fma = false, f16c = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false;
  bool avx512bf16 = false, avx512fp16 = false;
  bool amx_tile = false, amx_bf16 = false;
  /// Linux granted this process the AMX tile-data state (arch_prctl).
  bool amx_permitted = false;
};

/// Detects once (thread-safe) and returns the features. The first call also
/// asks Linux for permission to use AMX tile data when the CPU has AMX.
const CpuFeatures &cpu_features();

/// The highest level the processor and operating system support.
Isa max_supported_isa();

/// The level kernels use now: max_supported_isa() lowered to the cap.
/// Throws engine::Error when ENGINE_CPU_ISA holds an unknown value and no cap
/// was set through set_isa_cap().
Isa active_isa();

/// Caps the level (the lower of this and max_supported_isa() is used),
/// overriding ENGINE_CPU_ISA. Kernels read the level at each call, so a change
/// applies to the next call; do not change it while kernels run.
void set_isa_cap(Isa cap);

/// Forgets the cap set by set_isa_cap(); ENGINE_CPU_ISA applies again (and is
/// read anew at the next active_isa()).
void clear_isa_cap();

/// "scalar", "avx2", "avx512", "avx512bf16" or "amx".
std::string_view isa_name(Isa isa);

/// Parses a level name as isa_name() spells it. `source` names where the
/// text came from, for the error. Throws engine::Error for an unknown name:
/// "<source>: unknown instruction set 'x' (expected scalar, avx2, ...)".
Isa parse_isa(std::string_view name, std::string_view source = "isa");

/// The last-level cache's size in bytes (32 MiB where the system does not
/// say): what a measurement must read several times over to read memory.
int64_t last_level_cache_bytes();

/// One line for logs, e.g. "cpu: avx512bf16+amx, 2 threads".
std::string cpu_description(int num_threads);

} // namespace engine
