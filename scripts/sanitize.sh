#!/usr/bin/env bash
# The toolchain under AddressSanitizer and UndefinedBehaviorSanitizer (the
# `sanitize` preset: build-sanitize/, everything but the pass plugin, which
# clang loads, built with -fsanitize=address,undefined). `cmake --workflow
# --preset sanitize` (which scripts/test.sh runs) covers the unit tests and
# perfctl's lit tests; this script adds the lit suites that run programs
# built with perfcc, so the runtime works under the sanitizers in real
# processes: threads, fork, signals, the spill, dlopen (test/lit/lit.cfg.py
# preloads the sanitizer's runtime; about 20 minutes here, which is why CI
# does not run them).
# Usage: scripts/sanitize.sh [LIT-SUITE...]   (default: e2e driver pass)
set -euo pipefail
cd "$(dirname "$0")/.."
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
cmake --workflow --preset sanitize
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(e2e driver pass)
cd build-sanitize/test/lit
# Left out: headless Chromium (the viewer checks) does not start with the
# sanitizer's runtime preloaded, and a child forked from a program whose
# threads are busy deadlocks in GCC 12's AddressSanitizer allocator the
# moment it allocates (docs/robustness.md#sanitizers).
export LIT_FILTER_OUT="speedscope|viewer-check|stress-counts"
for suite in "${suites[@]}"; do
  python3 /usr/lib/llvm-14/build/utils/lit/lit.py -sv "$suite"
done
