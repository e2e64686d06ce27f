# speedup-paid-per-thread.test: reads the summary in argv[1].
import glob
import json
import sys

[path] = glob.glob(sys.argv[1] + "/prog.*.summary.json")
with open(path) as f:
    summary = json.load(f)
threads = summary["threads"]
if not any("speedup_paid_ns" in t for t in threads):
    print("no speedup_paid_ns")
    sys.exit(0)
total = summary["speedup"]["paid_ns"]
paid = [t["speedup_paid_ns"] for t in threads]
print("threads %d, sum equals the total: %s" % (
    len(threads), "yes" if abs(sum(paid) - total) <= 1000 else
    "no (%d against %d)" % (sum(paid), total)))
# The main thread is the first registered: the one that calls pause::works.
main = [t for t in threads if t["tid"] == summary["pid"]]
other = [t for t in threads if t["tid"] != summary["pid"]]
print("the sped-up thread paid: %s" % (
    "nothing" if main[0]["speedup_paid_ns"] < 0.05 * total else
    "%d ns of %d" % (main[0]["speedup_paid_ns"], total)))
print("the other paid: %s" % (
    "most" if other[0]["speedup_paid_ns"] > 0.9 * total else
    "%d ns of %d" % (other[0]["speedup_paid_ns"], total)))
