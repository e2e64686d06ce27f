#!/usr/bin/env bash
# Configures and builds perfcc (the dev preset: LLVM 14) into build/.
# Usage: scripts/build.sh [extra cmake --build args]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset dev >/dev/null
cmake --build build -j"$(nproc)" "$@"
