#!/usr/bin/env bash
# perfctl filter on a real project it was not written for: LevelDB's db_bench,
# built twice with no change to LevelDB (plain clang, and perfcc as CMake's
# compiler with every leveldb::* function probed), then readrandom run
# interleaved: plain; the perfcc build with its probes off (PERFCC_MODE=off);
# every probe, summary mode; every probe, trace mode; the probes `perfctl filter --max-overhead BUDGET` keeps, chosen
# at run time (PERFCC_TARGETS, summary mode) and at build time (a third build
# with the filtered targets file). Prints each round and the medians.
#
# Usage: bench/leveldb/run_filter_trial.sh LEVELDB_SRC PERFCC_BUILD WORK [ROUNDS] [BUDGET]
#   LEVELDB_SRC   a LevelDB checkout (github.com/google/leveldb); its benchmark
#                 and googletest submodules may be empty: Debian's stand in
#   PERFCC_BUILD  a perfcc build tree (build/)
#   WORK          a scratch folder: builds, database, outputs
# Not part of any test run: it needs a LevelDB checkout and a quiet machine.
set -euo pipefail
src=$(cd "${1:?usage: run_filter_trial.sh LEVELDB_SRC PERFCC_BUILD WORK [ROUNDS] [BUDGET]}" && pwd)
perfcc_build=$(cd "${2:?PERFCC_BUILD}" && pwd)
work=${3:?WORK}
rounds=${4:-5}
budget=${5:-5%}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
work=$(cd "$work" && pwd)

# The submodules, where the checkout has none: Debian's googletest sources and
# Google Benchmark package (db_bench links both; LevelDB itself is untouched).
if [ ! -f "$src/third_party/googletest/CMakeLists.txt" ]; then
  rmdir "$src/third_party/googletest" 2>/dev/null || true
  ln -sfn /usr/src/googletest "$src/third_party/googletest"
fi
if [ ! -f "$src/third_party/benchmark/CMakeLists.txt" ]; then
  mkdir -p "$src/third_party/benchmark"
  cp "$here/benchmark-standin.cmake" "$src/third_party/benchmark/CMakeLists.txt"
fi

# LevelDB's CMakeLists asks for C++11 unless told otherwise; its sources need 17.
common=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DLEVELDB_BUILD_TESTS=OFF)
build() { # dir, cmake args...
  local dir=$1; shift
  [ -x "$work/$dir/db_bench" ] && return
  cmake -S "$src" -B "$work/$dir" "${common[@]}" "$@" >"$work/$dir.configure.log"
  cmake --build "$work/$dir" --target db_bench -j"$(nproc)" >"$work/$dir.build.log"
}
build plain -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14
build perfcc -DCMAKE_C_COMPILER="$perfcc_build/bin/perfcc" \
  -DCMAKE_CXX_COMPILER="$perfcc_build/bin/perfcc++" \
  "-DCMAKE_CXX_FLAGS=--perf-targets=$here/leveldb.targets"

db=$work/db
num=${LEVELDB_NUM:-200000}
reads=${LEVELDB_READS:-200000}
bench=(--benchmarks=readrandom --use_existing_db=1 --db="$db" --num="$num" --reads="$reads")
# Filled and compacted once: a database left with level-0 files keeps the
# next runs' background thread compacting, and no two runs would do the same
# work.
if [ ! -d "$db" ]; then
  "$work/plain/db_bench" --benchmarks=fillrandom,compact --db="$db" --num="$num" >/dev/null
fi

# The run filter decides from: every probe, summary mode.
rm -rf "$work/decide"
PERFCC_MODE=summary PERFCC_OUT="$work/decide" "$work/perfcc/db_bench" "${bench[@]}" >/dev/null 2>&1
"$perfcc_build/bin/perfctl" filter "$work"/decide/db_bench.*.summary.json \
  --max-overhead "$budget" --targets "$here/leveldb.targets" \
  -o "$work/filtered.targets" 2>"$work/filter.log"
cat "$work/filter.log"
# The same file at build time: the functions it leaves out get no probes.
rm -rf "$work/rebuilt"
build rebuilt -DCMAKE_C_COMPILER="$perfcc_build/bin/perfcc" \
  -DCMAKE_CXX_COMPILER="$perfcc_build/bin/perfcc++" \
  "-DCMAKE_CXX_FLAGS=--perf-targets=$work/filtered.targets"

micros() { # the readrandom line's micros/op
  sed -n 's/^readrandom *: *\([0-9.]*\) micros\/op.*/\1/p'
}
declare -A results
for ((r = 1; r <= rounds; ++r)); do
  line="round $r:"
  for config in plain off summary trace filtered rebuilt; do
    out=$work/out-$config
    rm -rf "$out"
    case $config in
      plain) t=$("$work/plain/db_bench" "${bench[@]}" 2>/dev/null | micros) ;;
      # Probes compiled in, none recording: what the build alone costs.
      off) t=$(PERFCC_MODE=off "$work/perfcc/db_bench" "${bench[@]}" 2>/dev/null | micros) ;;
      summary) t=$(PERFCC_MODE=summary PERFCC_OUT=$out "$work/perfcc/db_bench" "${bench[@]}" 2>/dev/null | micros) ;;
      # The probes cost the same past the spill's cap; the cap keeps the
      # end-of-run conversion short.
      trace) t=$(PERFCC_MODE=trace PERFCC_TRACE_MAX_MB=256 PERFCC_OUT=$out "$work/perfcc/db_bench" "${bench[@]}" 2>/dev/null | micros) ;;
      filtered) t=$(PERFCC_MODE=summary PERFCC_TARGETS="$work/filtered.targets" PERFCC_OUT=$out "$work/perfcc/db_bench" "${bench[@]}" 2>/dev/null | micros) ;;
      rebuilt) t=$(PERFCC_MODE=summary PERFCC_OUT=$out "$work/rebuilt/db_bench" "${bench[@]}" 2>/dev/null | micros) ;;
    esac
    results[$config]+="$t "
    line+=" $config $t"
  done
  echo "$line us/op"
done
/usr/bin/python3 - "${results[plain]}" "${results[off]}" "${results[summary]}" "${results[trace]}" "${results[filtered]}" "${results[rebuilt]}" <<'PY'
import statistics, sys
names = ("plain", "off", "summary", "trace", "filtered", "rebuilt")
med = {n: statistics.median(float(x) for x in v.split()) for n, v in zip(names, sys.argv[1:])}
for n in names:
    print(f"{n:9} median {med[n]:8.3f} us/op  {med[n] / med['plain']:5.2f}x plain")
PY
