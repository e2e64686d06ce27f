#!/usr/bin/env bash
# Every GPU check, on a machine with a GPU, from a bundle built elsewhere
# (the GPU machines have no LLVM: scripts/gpu-bundle.sh gathers what this
# runs into gpu-bundle/, which the device run carries). Each step takes well
# under 10 minutes; everything is written under $OUT (default
# ./gpu-check-out) and packed there into gpu-check.tar.gz.part-aa, -ab, ...
# (`cat gpu-check.tar.gz.part-* | tar xz`): the machine, the CPU backend's kernel tests at every
# instruction-set level of this CPU, the CUDA engine's tests and benchmarks
# (batch-1 decode and pp512 as shipped, with the GEMVs', the sampler's and
# the attention kernels' untried options, without dependent launch), Hugging Face transformers as a second reference, the case study's
# traces and host sweep of the perfcc-built engine, the traced CUDA example with perfctl's
# report and its known-answer verdict, the speed-bump sweep of the same
# example against its real variants, the launch-cost benchmark, the probe
# cost on this machine's CPU, and the trace and CUPTI's raw buffers, as
# replay fixtures for the CPU-side tests.
# Usage: scripts/gpu-check.sh [BUNDLE]   (default gpu-bundle)
#        GPU_CHECK_ONLY=engine|engine-tests|engine-bench|case-study
#          scripts/gpu-check.sh: those steps (engine: its tests, then its
#          benchmarks; each half alone is well under 10 minutes)
#        GPU_CHECK_ONLY=sanitize: the CUDA kernels' tests under
#          compute-sanitizer (not part of `all`: tens of times slower), the
#          tools in GPU_CHECK_SANITIZE_TOOLS (default memcheck racecheck
#          synccheck), the tests in GPU_CHECK_SANITIZE_FILTER (a gtest filter)
#        GPU_CHECK_SECONDS=N: stop the steps after N seconds (default 560,
#          inside a device command's 10 minutes); what they wrote is packed
# Exit status: 0 all passed, 1 a check failed, 77 no GPU here, 124 stopped
# at the time limit.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bundle=$(cd "${1:-$root/gpu-bundle}" 2>/dev/null && pwd) || {
  echo "gpu-check: no bundle at ${1:-$root/gpu-bundle} (run scripts/gpu-bundle.sh here first)" >&2
  exit 2
}
out=${OUT:-$PWD/gpu-check-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# cuBLAS is too large to carry: the machine's own (its CUDA toolkit's, or
# the one PyTorch's wheels bring) is used.
if ! ldconfig -p | grep -q 'libcublas\.so\.13'; then
  cublas=$(find /usr/local /opt /usr/lib -name 'libcublas.so.13' 2>/dev/null | head -1)
  [ -n "$cublas" ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$(dirname "$cublas")"
fi
# The engine's tests read the golden fixtures where they were built.
golden=$(cat "$bundle/golden-dir" 2>/dev/null)
if [ -n "$golden" ] && [ ! -d "$golden" ]; then
  mkdir -p "$(dirname "$golden")" && ln -s "$bundle/golden" "$golden"
fi
only=${GPU_CHECK_ONLY:-all} # engine, engine-tests, ...: only those steps
case $only in
engine | engine-tests | engine-bench | case-study | sanitize | all) ;;
*)
  echo "gpu-check: GPU_CHECK_ONLY=$only: must be engine, engine-tests, engine-bench, case-study, sanitize or all" >&2
  exit 2
  ;;
esac
# A device run brings back few files from $OUT (8, each under 16 MiB) and
# nothing past two folders down, and a command at its time limit is killed
# with everything it started: the steps run in a child stopped at
# GPU_CHECK_SECONDS, writing into $out/gpu-check, which this process then
# packs into parts of 15 MiB, also when the steps were stopped.
seconds=${GPU_CHECK_SECONDS:-560}
case $seconds in
'' | *[!0-9]* | 0*)
  echo "gpu-check: GPU_CHECK_SECONDS=$seconds: must be a whole number of seconds above 0" >&2
  exit 2
  ;;
esac
if [ -z "${GPU_CHECK_STEPS:-}" ]; then
  rm -rf "$out/gpu-check" "$out"/gpu-check.tar.gz.part-*
  GPU_CHECK_STEPS=1 timeout --kill-after=15 "$seconds" "$0" "$bundle"
  rc=$?
  [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && {
    echo "gpu-check: stopped after GPU_CHECK_SECONDS=$seconds seconds; what the steps wrote is packed"
    rc=124
  }
  # Models (the case study's is 1.2 GB) stay behind where a step stopped.
  (cd "$out" && tar czf - --exclude='*.safetensors' gpu-check |
    split -b 15M - gpu-check.tar.gz.part- &&
    rm -rf gpu-check)
  echo "gpu-check: results in $out/gpu-check.tar.gz.part-* ($(cat "$out"/gpu-check.tar.gz.part-* | wc -c) bytes)"
  exit "$rc"
fi
out=$out/gpu-check
mkdir -p "$out"
failed=0
step() { echo; echo "== $*"; }

step "machine"
{ date -u +%FT%TZ; nvidia-smi -L; nvidia-smi --query-gpu=driver_version,name --format=csv,noheader; uname -r; } \
  2>&1 | tee "$out/machine.txt"
# Built on Debian 12: say so plainly if this machine cannot load it.
for f in "$bundle"/bin/*; do
  if ldd "$f" | grep -q 'not found'; then
    echo "gpu-check: $f cannot load here:"; ldd "$f" | grep 'not found'; failed=1
  fi
done

engine_test_steps() {
  # The GPU machines' CPUs have AVX-512, AVX512-BF16 and AMX, which the
  # machines the project is built on may lack: each CPU kernel test runs at
  # every level this CPU has (test/engine/cpu/isa_test_util.h).
  step "the engine's CPU kernels at every instruction-set level of this CPU"
  echo "beyond AVX2: $(grep -m1 -o -w -E 'amx_tile|avx512_bf16|avx512f' /proc/cpuinfo |
    sort -u | tr '\n' ' ')"
  for t in "$bundle"/bin/engine_cpu_*_test; do
    "$t" --gtest_brief=1 2>&1 | tee -a "$out/engine-cpu-kernels.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1
  done
  # The whole model's golden paths with each level forced (a level this CPU
  # lacks runs as its highest).
  for isa in scalar avx2 avx512 avx512bf16 amx; do
    echo "golden fixtures, ENGINE_CPU_ISA=$isa:"
    ENGINE_CPU_ISA=$isa "$bundle/bin/GoldenModelTest" --gtest_brief=1 2>&1 |
      tee -a "$out/engine-cpu-kernels.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1
  done

  step "the CUDA engine's kernels against the CPU backend's (engine/cuda)"
  "$bundle/bin/engine_cuda_kernels_test" 2>&1 | tee "$out/engine-kernels.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1
  # Blocks that hand results to one another (the one-pass decode's merge,
  # the split sampler's tickets, the fold's store before the last partition
  # reads it) race only now and then: their tests again, three times.
  echo "the tests of kernels whose blocks hand on results, three times more:"
  "$bundle/bin/engine_cuda_kernels_test" --gtest_brief=1 --gtest_repeat=3 \
    --gtest_filter='*DecodeAttention*:*Greedy*:*Draw*' 2>&1 |
    tee "$out/engine-kernels-repeated.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1

  step "the CUDA engine's model: CPU backend, golden reference, graphs, memory"
  "$bundle/bin/engine_cuda_model_test" 2>&1 | tee "$out/engine-model.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1
  echo "the same with the untried options (ENGINE_CUDA_GEMV_ROWS=4 ENGINE_CUDA_PREFETCH=1 ENGINE_CUDA_SPLIT_SAMPLING=1 ENGINE_CUDA_PREFILL_STAGING=async ENGINE_CUDA_FOLD_QK_NORM=1):"
  ENGINE_CUDA_GEMV_ROWS=4 ENGINE_CUDA_PREFETCH=1 ENGINE_CUDA_SPLIT_SAMPLING=1 \
    ENGINE_CUDA_PREFILL_STAGING=async ENGINE_CUDA_FOLD_QK_NORM=1 \
    "$bundle/bin/engine_cuda_model_test" --gtest_brief=1 2>&1 |
    tee "$out/engine-model-untried-options.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1

  step "the engine's invariants and golden greedy paths on the CUDA backend"
  ENGINE_TEST_DEVICE=cuda "$bundle/bin/EngineInvariantsTest" 2>&1 |
    tee "$out/engine-invariants.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1
  echo "the invariants with the split sampler, async prefill staging and the folded q/k norm (ENGINE_CUDA_SPLIT_SAMPLING=1 ENGINE_CUDA_PREFILL_STAGING=async ENGINE_CUDA_FOLD_QK_NORM=1):"
  ENGINE_TEST_DEVICE=cuda ENGINE_CUDA_SPLIT_SAMPLING=1 ENGINE_CUDA_PREFILL_STAGING=async \
    ENGINE_CUDA_FOLD_QK_NORM=1 \
    "$bundle/bin/EngineInvariantsTest" --gtest_brief=1 2>&1 |
    tee "$out/engine-invariants-untried-options.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1
  ENGINE_TEST_DEVICE=cuda "$bundle/bin/GoldenModelTest" \
    --gtest_filter='*Greedy*' 2>&1 | tee "$out/engine-golden.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1

  step "Hugging Face transformers as a second reference (golden fixtures; checkpoints it writes)"
  if python3 -c 'import transformers' 2>/dev/null; then
    python3 "$bundle/test/transformers_reference.py" "$bundle/golden" \
      "$bundle/bin/engine-generate" "$out/transformers" 2>&1 |
      tee "$out/transformers.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1
  else
    echo "gpu-check: no transformers here: skipped"
  fi
}
# The benchmarks: Nano-vLLM's protocol, pp512 and batch-1 decode with each
# untried option, interleaved.
engine_bench_steps() {
  step "benchmark: Nano-vLLM's protocol on the Qwen3-0.6B shape (random bf16 weights), then again with the split sampler and with each new staging of prefill attention's tiles"
  model=$(mktemp -d)/qwen3-0.6b
  "$bundle/bin/engine-make-model" --preset qwen3-0.6b --out "$model" >/dev/null &&
    "$bundle/bin/engine-bench" "$model" --device cuda --json \
      2>&1 | tee "$out/engine-bench.json" &&
    ENGINE_CUDA_SPLIT_SAMPLING=1 "$bundle/bin/engine-bench" "$model" --device cuda \
      --json 2>&1 | tee "$out/engine-bench-split-sampling.json" &&
    ENGINE_CUDA_PREFILL_STAGING=ldmatrix "$bundle/bin/engine-bench" "$model" --device cuda \
      --json 2>&1 | tee "$out/engine-bench-prefill-ldmatrix.json" &&
    ENGINE_CUDA_PREFILL_STAGING=async "$bundle/bin/engine-bench" "$model" --device cuda \
      --json 2>&1 | tee "$out/engine-bench-prefill-async.json" &&
    "$bundle/bin/engine-bench" "$model" --device cuda --pp 512 --tg 128 \
      --repetitions 3 --json 2>&1 | tee "$out/engine-bench-batch1.json" &&
    "$bundle/bin/engine-bench" "$model" --device cuda --pp 512 --tg 128 \
      --repetitions 3 --enforce-eager --json 2>&1 |
    tee "$out/engine-bench-batch1-eager.json" &&
    "$bundle/bin/engine-bench" "$model" --device cuda --parallel 16 --pp 128 \
      --tg 128 --repetitions 3 --json 2>&1 | tee "$out/engine-bench-parallel16.json"
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1

  # The GEMVs' two untried ways of reading their weights (gemv_options.h),
  # the split sampler (split_sampling.h), the q/k norm folded into decode
  # attention and prefill attention's two new stagings (attention_options.h:
  # the pp512 figures), against the shipped form and against it without
  # dependent launch.
  step "batch-1 decode, interleaved, two rounds: as shipped; the GEMVs' weights prefetched (ENGINE_CUDA_PREFETCH=1); 2 or 4 rows per group (ENGINE_CUDA_GEMV_ROWS); both; the split sampler (ENGINE_CUDA_SPLIT_SAMPLING=1); the q/k norm folded into decode attention (ENGINE_CUDA_FOLD_QK_NORM=1); all four; prefill attention's tiles staged with ldmatrix or async (ENGINE_CUDA_PREFILL_STAGING, pp512); without dependent launch (ENGINE_CUDA_PDL=0); CUDA's modules loaded eagerly (CUDA_MODULE_LOADING=EAGER: start-up and first request)"
  for round in 1 2; do
    for variant in shipped prefetch rows2 rows4 rows4-prefetch split-sampling fold-qk-norm all prefill-ldmatrix prefill-async nopdl eager-modules; do
      case $variant in
      shipped) settings=() ;;
      prefetch) settings=(ENGINE_CUDA_PREFETCH=1) ;;
      rows2) settings=(ENGINE_CUDA_GEMV_ROWS=2) ;;
      rows4) settings=(ENGINE_CUDA_GEMV_ROWS=4) ;;
      rows4-prefetch) settings=(ENGINE_CUDA_GEMV_ROWS=4 ENGINE_CUDA_PREFETCH=1) ;;
      split-sampling) settings=(ENGINE_CUDA_SPLIT_SAMPLING=1) ;;
      fold-qk-norm) settings=(ENGINE_CUDA_FOLD_QK_NORM=1) ;;
      all) settings=(ENGINE_CUDA_GEMV_ROWS=4 ENGINE_CUDA_PREFETCH=1 ENGINE_CUDA_SPLIT_SAMPLING=1
        ENGINE_CUDA_FOLD_QK_NORM=1) ;;
      prefill-ldmatrix) settings=(ENGINE_CUDA_PREFILL_STAGING=ldmatrix) ;;
      prefill-async) settings=(ENGINE_CUDA_PREFILL_STAGING=async) ;;
      nopdl) settings=(ENGINE_CUDA_PDL=0) ;;
      # CUDA loads a module's kernels at their first launch unless told
      # otherwise: the start-up and first request against lazy loading.
      eager-modules) settings=(CUDA_MODULE_LOADING=EAGER) ;;
      esac
      env "${settings[@]}" "$bundle/bin/engine-bench" "$model" --device cuda \
        --pp 512 --tg 128 --repetitions 3 --json \
        > "$out/engine-bench-batch1-$variant-$round.json" 2>&1 || failed=1
      echo "$variant, round $round: $(grep -o '"\(startup\|pp\|tg\)": {[^}]*' \
        "$out/engine-bench-batch1-$variant-$round.json" | tr '\n' ' ')"
    done
  done
  rm -rf "$(dirname "$model")"
}
# The case study (docs/case-study.md): the perfcc-built engine traced at
# batch 1 with and without CUDA graphs and over Nano-vLLM's protocol, and a
# speed-bump sweep over its host subsystems (2 runs per delay and group,
# then adaptive rounds for 90 s: about 6 minutes in all, estimated).
case_study_steps() {
  step "the case study: the perfcc-built engine's GPU idle, the protocol's kernels, its host subsystems' sweep"
  "$bundle/test/engine_case_study.sh" "$bundle/bin/engine-bench-perfcc" \
    "$bundle/bin/engine-make-model" "$bundle/bin/perfctl" \
    "$bundle/test/subsystems" "$out/case-study" 2>&1 | tee "$out/case-study.txt"
  rc=${PIPESTATUS[0]}
  rm -rf "$out/case-study/model"
  [ "$rc" -eq 77 ] && { echo "gpu-check: no GPU here"; exit 77; }
  [ "$rc" -eq 0 ] || failed=1
}
# Out-of-bounds and misaligned accesses (memcheck), shared-memory hazards
# between threads (racecheck) and barriers not every thread reaches
# (synccheck) in the kernels' own tests; a race between blocks through
# global memory is none of these, and shows only as results that move
# between runs.
sanitize_steps() {
  step "the CUDA kernels' tests under compute-sanitizer"
  local sanitizer
  sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
  if [ -z "$sanitizer" ]; then
    echo "gpu-check: no compute-sanitizer here"; failed=1; return
  fi
  local tool
  for tool in ${GPU_CHECK_SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    echo "-- $tool:"
    "$sanitizer" --tool "$tool" --error-exitcode 1 --print-limit 20 \
      "$bundle/bin/engine_cuda_kernels_test" --gtest_brief=1 \
      --gtest_filter="${GPU_CHECK_SANITIZE_FILTER:-*}" 2>&1 |
      tee "$out/sanitize-$tool.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1
  done
}
finish() {
  step "result"
  if [ "$failed" -eq 0 ]; then echo "gpu-check: all passed"; else echo "gpu-check: FAILED"; fi
  exit "$failed"
}
case $only in
engine) engine_test_steps; engine_bench_steps; finish ;;
engine-tests) engine_test_steps; finish ;;
engine-bench) engine_bench_steps; finish ;;
case-study) case_study_steps; finish ;;
sanitize) sanitize_steps; finish ;;
esac
# The engine first: it is what changes most.
engine_test_steps
engine_bench_steps
case_study_steps

step "the CUDA example's known answer (examples/cuda/stalls.cpp)"
"$bundle/test/cuda_stalls_known_answer.sh" "$bundle/bin/cuda_stalls" \
  "$bundle/bin/perfctl" "$out/known-answer" 2>&1 | tee "$out/known-answer.txt"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 77 ] && { echo "gpu-check: no GPU here"; exit 77; }
[ "$rc" -eq 0 ] || failed=1
# The trace and report are the fixtures a CPU-side test can replay.
cp "$out"/known-answer/trace/cuda_stalls.*.trace.json "$out/cuda_stalls.trace.json" 2>/dev/null
cp "$out/known-answer/report.json" "$out/cuda_stalls.report.json" 2>/dev/null
cp "$out"/known-answer/trace/cuda_stalls.*.cupti.bin "$out/cuda_stalls.cupti.bin" 2>/dev/null

step "the sweep against the real variants (examples/cuda/stalls.cpp)"
"$bundle/test/cuda_causal_ground_truth.sh" "$bundle/bin/cuda_stalls" \
  "$bundle/bin/perfctl" "$out/causal" 2>&1 | tee "$out/causal.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || failed=1

step "host cost per kernel launch (bench/gpu)"
"$bundle/test/run_launch_overhead.sh" "$bundle/bin/gpu_launch_overhead" \
  "$out/launch-overhead" 2>&1 | tee "$out/launch-overhead.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || failed=1

step "probe cost on this machine's CPU (bench/probe_overhead)"
"$bundle/test/run_probe_overhead.sh" "$bundle" 2>&1 | tee "$out/probe-overhead.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || failed=1

step "result"
if [ "$failed" -eq 0 ]; then echo "gpu-check: all passed"; else echo "gpu-check: FAILED"; fi
exit "$failed"
