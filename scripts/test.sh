#!/usr/bin/env bash
# The whole test suite that needs no GPU: installs what is missing, builds
# against LLVM 14 and runs every test but the `bench` label (`gpu` tests report
# themselves skipped where there is no GPU), then
# builds the plugin against LLVM 19 and runs the same suites there, then
# builds the toolchain under AddressSanitizer and UndefinedBehaviorSanitizer
# and runs the unit tests and perfctl's lit tests there (scripts/sanitize.sh
# runs the rest of the lit suites that way).
# Usage: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# Build on every core (the Makefile generator builds one file at a time
# otherwise); tests still run one at a time, since some measure timing.
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
cmake --workflow --preset dev
cmake --workflow --preset llvm19
cmake --workflow --preset sanitize
