#!/usr/bin/env python3
"""Checks `perfctl report --json` against a program's known answer: how much
GPU idle time must be charged (self) to which host functions, and which
must get none. Prints one line per check, `ok` or `WRONG`, and exits 1 on
any WRONG (2 on bad usage or an unreadable report).

Usage: check_idle_answer.py REPORT.json [--device N]
           [--charged FUNCTION=NS:TOLERANCE_PERCENT]...
           [--not-charged FUNCTION<NS]...
           [--launches FUNCTION=RECORDS]... [--expect FILE]

--expect FILE reads the same checks from a file a program wrote about its
own run, one per line: `charged FUNCTION NS TOLERANCE_PERCENT`,
`not-charged FUNCTION NS` or `launches FUNCTION RECORDS`.

Keys are perfctl report's (docs/perfctl.md#json); Python standard library.
"""
import json
import sys


def fail_usage(message):
    print("check_idle_answer: " + message, file=sys.stderr)
    sys.exit(2)


def main(argv):
    if len(argv) < 2:
        fail_usage("usage: check_idle_answer.py REPORT.json [options]")
    try:
        report = json.load(open(argv[1]))
    except (OSError, ValueError) as e:
        fail_usage("%s: %s" % (argv[1], e))
    device, charged, spared, launched = 0, [], [], []
    it = iter(argv[2:])
    for a in it:
        value = next(it, None)
        if value is None:
            fail_usage("%s needs a value" % a)
        if a == "--device":
            device = int(value)
        elif a == "--charged":
            fn, rest = value.rsplit("=", 1)
            ns, tol = rest.split(":")
            charged.append((fn, float(ns), float(tol)))
        elif a == "--not-charged":
            fn, ns = value.rsplit("<", 1)
            spared.append((fn, float(ns)))
        elif a == "--expect":
            try:
                lines = open(value).read().splitlines()
            except OSError as e:
                fail_usage("%s: %s" % (value, e))
            for line in lines:
                words = line.split()
                if not words:
                    continue
                if words[0] == "charged" and len(words) == 4:
                    charged.append((words[1], float(words[2]), float(words[3])))
                elif words[0] == "not-charged" and len(words) == 3:
                    spared.append((words[1], float(words[2])))
                elif words[0] == "launches" and len(words) == 3:
                    launched.append((words[1], int(words[2])))
                else:
                    fail_usage("%s: cannot read %r" % (value, line))
        elif a == "--launches":
            fn, count = value.rsplit("=", 1)
            launched.append((fn, int(count)))
        else:
            fail_usage("unknown option " + a)
    devices = {d["device"]: d for d in report["gpu"]["devices"]}
    if device not in devices:
        fail_usage("no GPU %d in the report" % device)
    functions = {f["name"]: f for f in
                 devices[device]["idle_attribution"]["functions"]}
    wrong = 0
    for fn, expected, tol in charged:
        got = functions.get(fn, {}).get("self_ns", 0)
        ok = abs(got - expected) <= expected * tol / 100
        wrong += not ok
        print("%s: %s charged %.3f ms of GPU idle, expected %.3f ms +- %g%%"
              % ("ok" if ok else "WRONG", fn, got / 1e6, expected / 1e6, tol))
    for fn, limit in spared:
        got = functions.get(fn, {}).get("self_ns", 0)
        ok = got < limit
        wrong += not ok
        print("%s: %s charged %.3f ms of GPU idle, expected under %.3f ms"
              % ("ok" if ok else "WRONG", fn, got / 1e6, limit / 1e6))
    launches = {e.get("function"): e["count"] for e in report["gpu"]["launchers"]}
    for fn, expected in launched:
        got = launches.get(fn, 0)
        ok = got == expected
        wrong += not ok
        print("%s: %s launched %d GPU records, expected %d"
              % ("ok" if ok else "WRONG", fn, got, expected))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
