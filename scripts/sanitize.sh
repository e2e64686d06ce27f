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
# Both presets build the engine too and run its tests (its CPU kernels,
# worker pool, scheduler and tokenizer) under the sanitizer.
# --tsan: the same under ThreadSanitizer (the `tsan` preset, build-tsan/;
# perfcc links TSan's runtime into the programs it builds, since it cannot be
# preloaded into the shell), its unit tests included (about 10 minutes).
# Usage: scripts/sanitize.sh [--tsan] [LIT-SUITE...]   (default: e2e driver pass)
set -euo pipefail
cd "$(dirname "$0")/.."
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
preset=sanitize folder=build-sanitize
if [ "${1:-}" = --tsan ]; then
  preset=tsan folder=build-tsan
  shift
fi
cmake --workflow --preset "$preset"
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(e2e driver pass)
cd "$folder/test/lit"
# Left out: headless Chromium (the viewer checks) does not start with the
# sanitizer's runtime preloaded. (The fork stress marks itself unsupported:
# a child forked from a program whose threads are busy deadlocks in GCC 12's
# AddressSanitizer allocator the moment it allocates, and TSan stops it;
# docs/robustness.md#sanitizers.) Under TSan, also the tests that time a
# speed bump or a virtual speedup, or predict the probes' share of a run:
# its slowdown moves them off their marks. (The fork tests mark themselves
# unsupported under TSan: test/lit/lit.cfg.py says why.)
export LIT_FILTER_OUT="speedscope|viewer-check|in-chromium"
[ "$preset" = tsan ] && LIT_FILTER_OUT+="|lock-delay|speedup-|delay-work|filter-max-overhead"
for suite in "${suites[@]}"; do
  python3 /usr/lib/llvm-14/build/utils/lit/lit.py -sv "$suite"
done
