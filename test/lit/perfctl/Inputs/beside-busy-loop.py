#!/usr/bin/env python3
"""Runs a command while another process keeps one CPU busy.

  beside-busy-loop.py [--for SECONDS] COMMAND [ARG...]

Starts a process that spins (and nothing else), runs COMMAND, stops the
spinner and exits with COMMAND's status: the "other load" a sweep must
notice (run/MachineLoad.h). With --for, the spinner stops by itself after
SECONDS: a disturbance that passes, as a sweep's runs go on.
"""
import subprocess
import sys


def main():
    args = sys.argv[1:]
    spin = "while True: pass"
    if args[:1] == ["--for"]:
        spin = ("import time\nend = time.monotonic() + %f\n"
                "while time.monotonic() < end: pass" % float(args[1]))
        args = args[2:]
    spinner = subprocess.Popen([sys.executable, "-c", spin])
    try:
        return subprocess.call(args)
    finally:
        spinner.kill()
        spinner.wait()


if __name__ == "__main__":
    sys.exit(main())
