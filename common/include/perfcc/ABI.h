/* The contract between libperfpass.so and libperfrt.so.
 *
 * Every name the pass emits and the runtime defines lives here, so the two
 * sides cannot drift apart. The pass includes this from C++ (it only uses the
 * string constants and the field order); the runtime includes it from C++ and
 * defines the probe functions. Plain C so a C-only consumer can read it too.
 */
#ifndef PERFCC_ABI_H
#define PERFCC_ABI_H

#include <stdint.h>

/* Bumped whenever the descriptor layout or a probe signature changes; the
 * runtime refuses descriptors of another version instead of misreading them. */
#define PERFCC_ABI_VERSION 1

/* One descriptor per instrumented function, emitted by the pass as a private
 * global in section PERFCC_DESC_SECTION. The hot path reads only `enabled`:
 * the pass guards every probe call with `if (desc->enabled)`, so a probe that
 * is compiled in but disabled at run time costs one load and one branch. */
struct perfcc_desc {
  uint32_t enabled; /* written by the runtime: PERFCC_ENABLED_* bits */
  uint32_t id;      /* written by the runtime: dense index, 0 = unregistered */
  const char *name; /* demangled qualified name without parameters */
  const char *mangled;
  const char *file; /* debug-info file, else the module's source file */
  uint32_t line;    /* debug-info line, 0 when there is none */
  uint32_t flags;   /* PERFCC_DESC_* bits */
};

/* flags */
#define PERFCC_DESC_EARLY 1u /* instrumented before inlining */

/* `enabled` bits: any bit set makes the instrumented code call the probes. */
#define PERFCC_ENABLED_RECORD 1u /* calls are recorded */
#define PERFCC_ENABLED_DELAY                                                   \
  2u /* calls get a speed bump (or, in virtual                                 \
        speedup mode, are the ones sped up) */
#define PERFCC_ENABLED_CATCHUP                                                 \
  4u /* virtual speedup mode: every probe pays                                 \
        the delays other threads owe */

#define PERFCC_ENABLED_NVTX 8u /* calls also push and pop an NVTX range */
#define PERFCC_ENABLED_CPU                                                     \
  16u /* calls also read the thread's CPU clock                                \
         (PERFCC_CPU_TIME) */

/* Section holding the descriptors; a C identifier so the linker defines
 * __start_/__stop_ symbols for it. */
#define PERFCC_DESC_SECTION "perfcc_desc"
#define PERFCC_DESC_START "__start_perfcc_desc"
#define PERFCC_DESC_STOP "__stop_perfcc_desc"

/* Probe entry points (all take the function's descriptor). */
#define PERFCC_ENTER "__perfcc_enter"
/* Normal exit: before every return and before a musttail call. */
#define PERFCC_EXIT "__perfcc_exit"
/* Exit while an exception unwinds through the function. */
#define PERFCC_UNWIND "__perfcc_unwind"
/* After a returns_twice call (setjmp) returns: frames above are dead. */
#define PERFCC_RESYNC "__perfcc_resync"
/* Called by each instrumented DSO's constructor with its section bounds. */
#define PERFCC_REGISTER "__perfcc_register"

/* The per-DSO constructor the pass emits (in a comdat, so one survives). */
#define PERFCC_MODULE_CTOR "perfcc.module_ctor"
/* Module flag marking a module as already instrumented (idempotence). */
#define PERFCC_MODULE_FLAG "perfcc.instrumented"
/* Section of the marker every module of the runtime carries (one byte per
 * object, runtime/perfrt_noinstr.h): the pass leaves every function of such a
 * module alone, compiler-generated ones included, which no attribute reaches.
 */
#define PERFCC_RUNTIME_SECTION "perfcc_runtime"
/* Prefix of descriptor globals and their strings. */
#define PERFCC_DESC_PREFIX "__perfcc_desc."

#ifdef __cplusplus
extern "C" {
#endif
void __perfcc_enter(struct perfcc_desc *desc);
void __perfcc_exit(struct perfcc_desc *desc);
void __perfcc_unwind(struct perfcc_desc *desc);
void __perfcc_resync(struct perfcc_desc *desc);
void __perfcc_register(uint32_t abi_version, struct perfcc_desc *begin,
                       struct perfcc_desc *end);
#ifdef __cplusplus
}
#endif

#endif /* PERFCC_ABI_H */
