# speedup-join-pays-what-the-wait-did-not-cover.test: the virtual-speedup
# pause the main thread paid, as a share of what pause::works inserted, from
# the summary in argv[1]. Both are counted by the runtime: a works() call
# preempted past its 2 ms inserts more, and main owes that much more, so
# the share does not move with the machine's load where milliseconds do.
import glob
import json
import sys

[path] = glob.glob(sys.argv[1] + "/prog.*.summary.json")
with open(path) as f:
    summary = json.load(f)
[main] = [t for t in summary["threads"] if t["tid"] == summary["pid"]]
inserted = summary["speedup"]["inserted_ns"]
paid = main["speedup_paid_ns"]
print("main paid %.2f of what the speedup inserted (%.1f of %.1f ms)" %
      (paid / inserted if inserted else 0.0, paid / 1e6, inserted / 1e6))
