# speedup-join-pays-what-the-wait-did-not-cover.test: the virtual-speedup
# pause the main thread paid, per round of 5, from the summary in argv[1].
import glob
import json
import sys

[path] = glob.glob(sys.argv[1] + "/prog.*.summary.json")
with open(path) as f:
    summary = json.load(f)
[main] = [t for t in summary["threads"] if t["tid"] == summary["pid"]]
print("main paid %.1f ms a round" % (main["speedup_paid_ns"] / 5 / 1e6))
