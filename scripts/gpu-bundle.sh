#!/usr/bin/env bash
# Gathers what scripts/gpu-check.sh runs on a GPU machine into gpu-bundle/
# and packs it into gpu-bundle.tar.gz (both ignored by git; 118 MiB
# unpacked, 41 MiB packed on 2026-11-30: a device run carries the packed
# one, under its 64 MiB).
# The GPU machines have no LLVM, so everything built with perfcc is built
# here: perfctl, the runtime and its CUPTI adapter, the CUDA example and the
# launch benchmark, with the libraries they need that a CUDA machine may
# lack (the C and C++ runtimes excepted), found by ldd.
# Usage: scripts/gpu-bundle.sh [BUILD_DIR]   (default build/, configured)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "gpu-bundle: $build is not a configured build (run scripts/build.sh)" >&2
  exit 2
fi
cmake --build "$build" -j"$(nproc)" --target perfctl perfrt perfrt_cupti \
  examples_cuda bench_gpu_launch_overhead bench_probe_overhead \
  engine-bench engine-generate engine-make-model engine_cuda_kernels_test \
  engine_cuda_model_test EngineInvariantsTest GoldenModelTest engine_perfcc \
  engine_cpu_attention_test engine_cpu_matmul_test engine_cpu_gemv_test \
  engine_cpu_ops_test engine_cpu_avx2_math_test
rm -rf gpu-bundle
mkdir -p gpu-bundle/bin gpu-bundle/lib gpu-bundle/test gpu-bundle/bench
cp "$build/bin/perfctl" "$build/examples/cuda_stalls" \
   "$build/bench/gpu_launch_overhead" gpu-bundle/bin/
cp "$build/lib/libperfrt.so" "$build/lib/libperfrt_cupti.so" gpu-bundle/lib/
# The CUDA engine: its programs and GPU tests, and the golden fixtures the
# tests read at the path they were built with (gpu-check.sh links it there).
cp "$build"/bin/engine-bench "$build"/bin/engine-generate \
   "$build"/bin/engine-make-model "$build"/bin/engine_cuda_kernels_test \
   "$build"/bin/engine_cuda_model_test "$build"/bin/EngineInvariantsTest \
   "$build"/bin/GoldenModelTest gpu-bundle/bin/
# The CPU backend's kernel tests: the GPU machines' CPUs have AVX-512 and AMX.
cp "$build"/bin/engine_cpu_attention_test "$build"/bin/engine_cpu_matmul_test \
   "$build"/bin/engine_cpu_gemv_test "$build"/bin/engine_cpu_ops_test \
   "$build"/bin/engine_cpu_avx2_math_test gpu-bundle/bin/
# The perfcc build of the engine (probes on its host code), for traces.
if [ -x "$build/engine-perfcc/bin/engine-bench" ]; then
  cp "$build/engine-perfcc/bin/engine-bench" gpu-bundle/bin/engine-bench-perfcc
fi
cp -r test/engine/golden gpu-bundle/golden
echo "$PWD/test/engine/golden" > gpu-bundle/golden-dir
# The checks themselves travel with the bundle, so one folder is enough.
cp test/gpu/*.sh test/gpu/*.py scripts/real_answer.py \
   test/lit/perfctl/Inputs/sweepcheck.py gpu-bundle/test/
cp -r examples/engine/subsystems gpu-bundle/test/subsystems
cp bench/gpu/run_launch_overhead.sh bench/run_probe_overhead.sh \
   bench/probe_overhead.disabled gpu-bundle/test/
# run_probe_overhead.sh takes a build folder: the bundle is laid out as one.
cp "$build/bench/probe_overhead" gpu-bundle/bench/
for f in gpu-bundle/bin/* gpu-bundle/bench/* gpu-bundle/lib/*; do
  ldd "$f" | awk '/=> \// { print $3 }'
done | sort -u |
  grep -v -E '/(libc|libm|libpthread|libdl|librt|libutil|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so' |
  grep -v -E '/libcublas(Lt)?\.so' | # 570 MB: the GPU machine's own is used
  grep -v -F "$PWD/$build/lib" |
  while read -r lib; do cp -L "$lib" gpu-bundle/lib/; done
# Debug info is most of the size and nothing the checks read.
strip --strip-debug gpu-bundle/bin/* gpu-bundle/bench/* gpu-bundle/lib/*
du -sh gpu-bundle | sed 's/^/gpu-bundle: /'
# What a device run carries (64 MiB with the working tree): OpenBLAS alone
# is 36 MB unpacked, a third of that packed.
tar czf gpu-bundle.tar.gz gpu-bundle
du -sh gpu-bundle.tar.gz | sed 's/^/gpu-bundle: packed: /'
