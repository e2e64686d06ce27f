#!/bin/sh
# Stands in for clang in the driver tests (PERFCC_CLANG, PERFCC_CLANGXX): a
# test copies it to %t/fake-clang and %t/fake-clang++ and runs perfcc with
# those. It prints the name it runs under, its arguments one per line and the
# PERFCC_BUILD_* variables it sees, then exits with FAKE_EXIT (default 0), or
# kills itself with signal FAKE_SIGNAL.
echo "compiler: ${0##*/}"
for arg in "$@"; do
  echo "arg: $arg"
done
env | grep '^PERFCC_BUILD_' | sort | sed 's/^/env: /'
if [ -n "$FAKE_SIGNAL" ]; then
  kill -s "$FAKE_SIGNAL" $$
fi
exit "${FAKE_EXIT:-0}"
