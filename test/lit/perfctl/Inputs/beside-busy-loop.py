#!/usr/bin/env python3
"""Runs a command while another process keeps one CPU busy.

  beside-busy-loop.py COMMAND [ARG...]

Starts a process that spins (and nothing else), runs COMMAND, stops the
spinner and exits with COMMAND's status: the "other load" a sweep must
notice (run/MachineLoad.h).
"""
import subprocess
import sys


def main():
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        return subprocess.call(sys.argv[1:])
    finally:
        spinner.kill()
        spinner.wait()


if __name__ == "__main__":
    sys.exit(main())
