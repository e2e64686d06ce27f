#!/usr/bin/env bash
# Checks that a perfcc trace loads in a real viewer (speedscope in headless Chromium), as docs/runtime.md
# "Output" promises. Installs the pinned viewer packages into test/viewer/node_modules on first
# use (or when the lockfile changed), then runs test/viewer/check-trace.mjs, whose exit status it
# returns: 0 loaded, 1 the viewer rejected the trace, 2 usage or setup problem.
#
# With --flamegraph first, checks instead that a flame graph written by `perfctl export --format
# flamegraph` works in the same Chromium (test/viewer/check-flamegraph.mjs: drawn, tooltips, zoom).
#
# Usage: scripts/check-trace-viewer.sh TRACE.json [--screenshot OUT.png] [--timeout-ms N] [--allow-warnings]
#        scripts/check-trace-viewer.sh --flamegraph GRAPH.svg [--expect NAME]... [--zoom NAME] [--screenshot OUT.png]
# Environment: CHROMIUM=/path/to/chromium overrides /usr/bin/chromium.
set -euo pipefail

viewer_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../test/viewer" && pwd)"

if [[ $# -lt 1 ]]; then
  echo "usage: $0 [--flamegraph GRAPH.svg | TRACE.json] [--screenshot OUT.png] [--timeout-ms N] [--allow-warnings]" >&2
  exit 2
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "check-trace-viewer: node and npm are required (install them: apt-get install nodejs npm)" >&2
  exit 2
fi
chromium="${CHROMIUM:-/usr/bin/chromium}"
if [[ ! -x "$chromium" ]]; then
  echo "check-trace-viewer: no Chromium at $chromium (install chromium: apt-get install chromium, or set CHROMIUM)" >&2
  exit 2
fi
export CHROMIUM="$chromium"

# npm records what it installed in node_modules/.package-lock.json; a lockfile newer than that
# means the pins moved since the last install, and a stale speedscope would test the wrong viewer.
stamp="$viewer_dir/node_modules/.package-lock.json"
if [[ ! -f "$stamp" || ! -d "$viewer_dir/node_modules/speedscope" || ! -d "$viewer_dir/node_modules/playwright-core" \
      || "$viewer_dir/package-lock.json" -nt "$stamp" || "$viewer_dir/package.json" -nt "$stamp" ]]; then
  if [[ -f "$viewer_dir/package-lock.json" ]]; then npm_cmd=(npm ci); else npm_cmd=(npm install); fi
  log="$(mktemp)"
  # Quiet on success; the full npm log on failure, since that is the only clue when offline.
  if ! (cd "$viewer_dir" && "${npm_cmd[@]}" --no-audit --no-fund --loglevel=error) >"$log" 2>&1; then
    echo "check-trace-viewer: '${npm_cmd[*]}' failed in $viewer_dir:" >&2
    cat "$log" >&2
    rm -f "$log"
    exit 2
  fi
  rm -f "$log"
fi

if [[ "$1" == "--flamegraph" ]]; then
  shift
  exec node "$viewer_dir/check-flamegraph.mjs" "$@"
fi
exec node "$viewer_dir/check-trace.mjs" "$@"
