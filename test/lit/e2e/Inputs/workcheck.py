"""What a run says of perf_work (perf/perf.h), one line per function, for
FileCheck (work-is-charged-to-the-innermost-call.cpp):

  workcheck.py summary SUMMARY   each function's calls, work totals, and
                                 whether its rates agree with them over its
                                 inclusive time; then the unattributed work
  workcheck.py trace TRACE       each function-table entry's work
  workcheck.py report REPORT     whether perfctl report --json's host.work
                                 rows come most time first, then each row
"""
import json
import sys


def near(a, b, rel):
    return abs(a - b) <= rel * max(1, abs(b))


def summary(doc):
    for f in sorted(doc["functions"], key=lambda f: f["name"]):
        if "work" not in f:
            print(f["name"], "calls", f["calls"], "no work")
            continue
        w = f["work"]
        # The runtime prints rates with six significant digits.
        seconds = f["inclusive_ns"]["total"] / 1e9
        ok = near(w["bytes_per_s"] * seconds, w["bytes"], 1e-5) and \
            near(w["flops_per_byte"] * w["bytes"], w["flops"], 1e-5)
        print(f["name"], "calls", f["calls"], "work", w["bytes"], w["flops"],
              w["reports"], "rate", "ok" if ok else "wrong")
    u = doc["work_unattributed"]
    print("unattributed", u["bytes"], u["flops"], u["reports"])


def trace(doc):
    for f in sorted(doc["metadata"]["functions"], key=lambda f: f["name"]):
        print(f["name"], f.get("work"))


def report(doc):
    rows = doc["host"]["work"]
    times = [w["inclusive_ns"] for w in rows]
    print("order", "most time first" if times == sorted(times, reverse=True)
          else "wrong")
    for w in sorted(rows, key=lambda w: w["name"]):
        ok = near(w["bytes_per_s"] * w["inclusive_ns"] / 1e9, w["bytes"], 1e-9)
        print(w["name"], "calls", w["calls"], "bytes", w["bytes"], "flops",
              w["flops"], "GB/s", "ok" if ok else "wrong")


if __name__ == "__main__":
    with open(sys.argv[2]) as f:
        {"summary": summary, "trace": trace, "report": report}[sys.argv[1]](
            json.load(f))
