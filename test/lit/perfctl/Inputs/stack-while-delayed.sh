#!/bin/sh
# Runs the program given, stacked on one CPU (taskset) while perfctl's
# delay is not zero: a machine whose scheduler stacks the program's threads
# only while a spinning delay runs, as a guest kernel packing its vCPUs did
# on CI, with no other process to see.
# Usage: stack-while-delayed.sh PROGRAM [ARGS...]
if [ "${PERFCC_DELAY_NS:-0}" != 0 ]; then
  exec taskset -c "$(cut -d' ' -f39 /proc/self/stat)" "$@"
fi
exec "$@"
