#!/usr/bin/env python3
"""Waits until the machine is quiet before a ground-truth sweep.

  wait-for-quiet.py [MAX_SECONDS]

The ground-truth programs' answers (slack between threads, thresholds) hold
only when their threads can run side by side; another process busy on a
core turns every threshold linear. This waits, at most MAX_SECONDS (default
30), until one second passes with less than a third of a core busy (by
/proc/stat), then exits 0 either way: the sweep measures the machine's use
during its own runs, and sweepcheck.py's "machine" line shows it.
"""
import os
import sys
import time

QUIET_CORES = 0.33


def busy_seconds():
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:9]]
    user, nice, system, idle, iowait, irq, softirq, steal = fields
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def main():
    limit = float(sys.argv[1]) if len(sys.argv) > 1 else 30.0
    start = time.monotonic()
    try:
        busy_seconds()
    except OSError:
        return 0  # not Linux: nothing to wait for
    while True:
        before, t0 = busy_seconds(), time.monotonic()
        time.sleep(1.0)
        cores = (busy_seconds() - before) / (time.monotonic() - t0)
        if cores < QUIET_CORES:
            return 0
        if time.monotonic() - start > limit:
            sys.stderr.write("wait-for-quiet: the machine stayed busy "
                             "(%.2f cores) for %.0f s; going on\n" % (cores, limit))
            return 0


if __name__ == "__main__":
    sys.exit(main())
