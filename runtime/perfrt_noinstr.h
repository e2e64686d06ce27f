//===- perfrt_noinstr.h - nothing in the runtime is ever instrumented -----===//
//
// Every runtime source opens with this header and PERFRT_NOINSTR_BEGIN, before
// any other include, and closes with PERFRT_NOINSTR_END. Under clang the
// region marks every function declared inside it no_instrument_function and
// xray_never_instrument: the runtime's own functions, its lambdas and the
// library templates it instantiates, so neither perfcc's pass, nor
// -finstrument-functions, nor XRay can put a probe in the runtime's path (a
// probe there would re-enter the runtime from its own hot path).
// test/lit/pass/runtime-is-never-instrumented.test checks it for every file.
// GCC has no such region; runtime/CMakeLists.txt excludes the whole runtime
// from GCC's -finstrument-functions instead.
//
// The marker below tells perfcc's pass that a module is the runtime's: it
// then leaves every function alone, the compiler-generated ones (implicit
// members, static initializers) that no attribute reaches included.
//
// No includes but ABI.h (macros and stdint.h's types): the region must open
// before the first function declaration, and clang requires a push and its
// pop in the same file.
//
//===----------------------------------------------------------------------===//
#ifndef PERFRT_NOINSTR_H
#define PERFRT_NOINSTR_H

#include "perfcc/ABI.h"

#define PERFRT_RUNTIME_MARKER                                                  \
  __attribute__((used, section(PERFCC_RUNTIME_SECTION)))
[[maybe_unused]] PERFRT_RUNTIME_MARKER static const char perfrtRuntimeModule =
    1;

#if defined(__clang__)
// _Pragma takes one string literal, which must stay unsplit.
// clang-format off
#define PERFRT_NOINSTR_BEGIN \
  _Pragma("clang attribute push(__attribute__((no_instrument_function)), apply_to = function)") \
  _Pragma("clang attribute push(__attribute__((xray_never_instrument)), apply_to = function)")
#define PERFRT_NOINSTR_END \
  _Pragma("clang attribute pop") _Pragma("clang attribute pop")
// clang-format on
#else
#define PERFRT_NOINSTR_BEGIN
#define PERFRT_NOINSTR_END
#endif

#endif // PERFRT_NOINSTR_H
