#!/usr/bin/env python3
"""Prints what a perfctl sweep.json says, one fact a line, for FileCheck.

  sweepcheck.py summary OUT/sweep.json   status, runs, whether the machine
                                         was quiet, shapes, ranking, then each
                                         group's cost per call and hinge
  sweepcheck.py order OUT/sweep.json     the run order: group delay repeat
  sweepcheck.py runs OUT/sweep.json      each run's fields are all there
  sweepcheck.py stdout OUT/sweep.json    each run's stdout, by group and delay
                                         (or speedup)
  sweepcheck.py sizing OUT/sweep.json    how the sweep sized itself: what
                                         stopped it, each group's delays,
                                         repeats and whether it settled
  sweepcheck.py speedup OUT/sweep.json [GROUP:P=GAIN ...]
                                         a speedup sweep: status, runs, each
                                         group's validity and verdict, the
                                         ranking, and whether the predicted
                                         gain at P% is within 3 points of GAIN
  sweepcheck.py against-real OUT/sweep.json P REAL.json [REAL.json ...]
                                         a speed-bump sweep's answers against
                                         the real ones (scripts/real_answer.py's
                                         runs of variants doing P% less work,
                                         named as the groups; several files,
                                         measured before and after the sweep,
                                         are pooled): whether each
                                         prediction at P% is near the real
                                         gain, and each shape fits it (an
                                         inconclusive group passes only where
                                         the real gain is between slack and
                                         the critical path)
  sweepcheck.py speedup-against-real OUT/sweep.json P REAL.json ...
                                         a speedup sweep's gains at P%
                                         against the real ones (pooled as
                                         above): whether each is near
  sweepcheck.py signs BUMPS/sweep.json SPEEDUP/sweep.json P REAL.json ...
                                         the sign of the real gain of doing P%
                                         less work (pooled as above) and of
                                         both modes' predictions at P%: a
                                         loss, a gain or about nothing

Checks the file's invariants on the way (every run has its fields, the
interval holds its estimate) and exits 1 with a message when one fails.
"""
import json
import statistics
import sys

RUN_FIELDS = ["index", "group", "armed", "delay_ns", "repeat", "folder",
              "exit_status", "signal", "wall_s", "cpu_s", "other_cpu_cores",
              "measured", "error"]
MEASURED_FIELDS = ["throughput", "work_units", "window_ns", "time_per_unit_ns",
                   "delayed_calls", "delivered_ns", "delay_per_unit_ns"]


def fail(message):
    print("sweepcheck: " + message)
    sys.exit(1)


def machine(doc):
    """Whether the program had the machine to itself: the ground-truth
    sweeps' answers assume it did."""
    m = doc.get("machine")
    if m is None:
        print("machine unknown")
    else:
        print("machine %s: other processes used %.2f of %d CPUs "
              "(%.2f in the busiest run); %d disturbed run(s) made again%s%s"
              % ("busy" if m["busy"] else "quiet", m["other_cpu_cores_mean"],
                 m["cpus"], m["other_cpu_cores_max"],
                 m.get("disturbed_runs_made_again", 0),
                 "" if m.get("settled", True) else ", until it stayed busy",
                 "; the busiest others: " + m["busiest_other_processes"]
                 if m.get("busiest_other_processes") else ""))


def speedup(doc, truths):
    runs = [r for r in doc["runs"] if not r.get("disturbed")]
    print("status %s mode %s" % (doc["status"], doc["settings"]["mode"]))
    print("runs %d of %d, measured %d" % (
        len(runs), doc["runs_planned"],
        sum(1 for r in runs if r["measured"])))
    machine(doc)
    analysis = doc.get("analysis")
    if not analysis:
        print("no analysis")
        return
    groups = {g["name"]: g for g in analysis["groups"]}
    for g in analysis["groups"]:
        for level in g["levels"]:
            gain = level["gain_percent"]
            if gain["value"] is not None and \
                    not (gain["ci"][0] <= gain["value"] <= gain["ci"][1]):
                fail("%s: gain outside its interval" % g["name"])
        print("group %s %s: %s" % (g["name"], "valid" if g["valid"]
                                   else "invalid", g["verdict"]))
    print("ranking " + " ".join(analysis["ranking"]))
    for truth in truths:
        name, rest = truth.split(":")
        percent, gain = rest.split("=")
        [level] = [l for l in groups[name]["levels"]
                   if l["percent"] == int(percent)]
        value = level["gain_percent"]["value"]
        print("%s %s%%: %s" % (name, percent, "near %s" % gain
                               if abs(value - float(gain)) <= 3 else
                               "%+.1f, not near %s" % (value, gain)))


# A real gain this close to 0 is slack: the shape must say so.
SLACK_POINTS = 1.5
# A real gain this large is a function on the critical path.
ON_PATH_POINTS = 10.0
SLACK_SHAPES = ("threshold", "none")
ON_PATH_SHAPES = ("linear", "sub-linear")


def tolerance(real):
    """How far a prediction may be from the real gain, in points: the real
    gain is a median of a few timed runs, and a line extrapolated from
    slowing a function to speeding it up is an estimate."""
    return 4 + 0.15 * abs(real)


def pooled(real_paths):
    """The real runs of every file together: the base's rates and each
    variant's, and each variant's gain as scripts/real_answer.py takes it,
    the median over rounds of the round's ratio to the base."""
    base, variants = [], {}
    for path in real_paths:
        with open(path) as f:
            real = json.load(f)
        base += real["base_rates"]
        for name, answer in real["gains"].items():
            variants.setdefault(name, []).extend(answer["rates"])
    median = statistics.median
    return base, {name: {"rates": rates,
                         "gain_percent": 100 * (median(
                             [v / b for v, b in zip(rates, base)]) - 1)}
                  for name, rates in variants.items()}


def knee_unsettled(doc, g):
    """Whether an inconclusive group found a knee (its hinge beat the line)
    and the sweep ran out of budget (or of repeats) before it could tell the
    stretch before the knee flat or rising."""
    hinge = g["fit"]["hinge"]
    sizing = doc.get("sizing") or {}
    return hinge["ok"] and hinge["p"] is not None and hinge["p"] < 0.05 and \
        sizing.get("stop") in ("budget", "max-repeats") and \
        "a knee at" in g["evidence"][-1]


def against_real(doc, percent, real_paths):
    base_rates, gains = pooled(real_paths)
    groups = {g["name"]: g for g in doc["analysis"]["groups"]}
    details = []
    for name, answer in sorted(gains.items()):
        g = groups[name]
        gain = answer["gain_percent"]
        by = {e["percent"]: e for e in g.get("extrapolation", [])
              if e.get("percent")}
        e = by.get(percent)
        predicted = e["gain_percent"]["value"] if e and e["valid"] else None
        interval = e["gain_percent"]["ci"] if predicted is not None else None
        if abs(gain) < SLACK_POINTS:
            fits, truth = g["shape"] in SLACK_SHAPES, "slack"
        elif gain > ON_PATH_POINTS:
            fits, truth = g["shape"] in ON_PATH_SHAPES, "on the path"
        else:
            # Partly on the path: any shape may be right; its number decides.
            fits, truth = True, "partly on the path: judged by its number"
        if g.get("took_turns") and g["shape"] == "inconclusive":
            # The threads took turns for a CPU while the group was delayed
            # and not without delay (perfctl warned): the sweep measured
            # another machine than the real answer did, and said so.
            wait = g["cpu_wait_share"]
            print("group %s not judged: its threads took turns for a CPU "
                  "(waited %.0f%% of the time delayed, %.0f%% not)" % (
                      name, 100 * wait["delayed"], 100 * wait["undelayed"]))
            print("group %s shape not judged (threads took turns)" % name)
            details.append("real %s: %d%% less work %+.1f%%; inconclusive, "
                           "threads took turns" % (name, percent, gain))
            continue
        machine_busy = (doc.get("machine") or {}).get("busy")
        if machine_busy and truth != "on the path" and \
                g["shape"] in ON_PATH_SHAPES:
            # Other processes kept a core busy through the sweep's runs,
            # disturbed runs made again or not (perfctl warned and named
            # them): threads that took turns show no slack, so the sweep
            # measured another machine than the real answer did.
            print("group %s not judged: on the path on a busy machine, where "
                  "the real gain (%+.1f%%) says slack" % (name, gain))
            print("group %s shape not judged (busy machine)" % name)
            details.append("real %s: %d%% less work %+.1f%%; shape %s on a "
                           "busy machine" % (name, percent, gain, g["shape"]))
            continue
        if predicted is None and g["shape"] == "inconclusive" and \
                truth.startswith("partly"):
            # Between slack and the critical path (two threads that a busy
            # hypervisor does not always run side by side), "cannot tell" is
            # an honest answer; a wrong number would not be, and neither is
            # "cannot tell" where the truth is clear.
            print("group %s inconclusive where the real gain (%+.1f%%) is "
                  "partly on the path" % (name, gain))
        elif predicted is None and g["shape"] == "inconclusive" and \
                truth == "slack" and knee_unsettled(doc, g):
            # It found the slack's end (a knee) but could not tell, in the
            # whole budget, whether the stretch before it is flat or a
            # gentle rise: it said so and how to settle it (a larger
            # budget), which is an honest answer; a wrong shape would not be.
            # The knee must be significant before the correction for several
            # groups (one that is not may be noise).
            print("group %s inconclusive where the real gain (%+.1f%%) says "
                  "slack: a knee found, the stretch before it unsettled when "
                  "the budget ran out" % (name, gain))
            fits, truth = True, "slack, not settled"
        elif predicted is None:
            print("group %s: no prediction at %d%% (%s)" % (
                name, percent, g["shape"]))
        elif abs(predicted - gain) <= tolerance(gain):
            print("group %s prediction near the real gain" % name)
            if truth == "slack" and g.get("predicted_from") == "near_no_delay":
                # A curve that steepens, answered from its smaller delays
                # (a knee its test did not show): the gentle stretch there,
                # whose most (the prediction, its interval down to nothing)
                # is near the real gain, is the slack's shape as measured.
                fits, truth = True, "slack: a gentle stretch near no delay"
        elif interval[0] <= gain <= interval[1] and \
                interval[1] - interval[0] <= abs(gain):
            # The claim is the number with its interval: an interval that
            # holds the real gain and is narrower than the gain itself (it
            # tells the gain from nothing) is a right answer too. A slack
            # that caps the gain, measured low on a busy machine, widens the
            # interval rather than the error.
            print("group %s prediction's interval holds the real gain" % name)
        else:
            print("group %s prediction off by %.1f points (at most %.1f)" % (
                name, abs(predicted - gain), tolerance(gain)))
        print("group %s shape %s the real answer (%s)" % (
            name, "fits" if fits else "%s does not fit" % g["shape"], truth))
        if g["shape"] == "inconclusive":
            details.append("why %s is inconclusive: %s" % (
                name, g["evidence"][-1]))
        details.append("real %s: %d%% less work %+.1f%% (base rates %s, "
                       "variant's %s); predicted %s, shape %s" % (
                           name, percent, gain,
                           " ".join("%.0f" % r for r in base_rates),
                           " ".join("%.0f" % r for r in answer["rates"]),
                           "-" if predicted is None else
                           "%+.1f%% [%+.1f%%, %+.1f%%]" % (
                               predicted, interval[0], interval[1]),
                           g["shape"]))
    # Last, and not for CHECK lines: what a failure's log needs.
    for line in details:
        print(line)
    levels(doc)
    machine(doc)


def levels(doc):
    """Each group's runs by delay: the delay each unit of work got, the time
    a unit took and how many cores the program kept busy (its CPU time over
    its wall time), how many calls a unit were delayed and the share of the
    run some thread waited for a CPU, medians over the repeats. A failure's log needs them to tell a slack the spin ate (cores
    falling where they should rise: the threads took turns, or the spin
    slowed the CPU beside it) or a delay that fell on more calls than the
    group's from a wrong fit."""
    runs = [r for r in doc["runs"] if not r.get("disturbed") and
            r["measured"] and r["wall_s"] > 0]
    median = statistics.median
    for name in sorted({r["group"] or "unarmed" for r in runs}):
        mine = [r for r in runs if (r["group"] or "unarmed") == name]
        parts = []
        for delay in sorted({r["delay_ns"] for r in mine}):
            at = [r for r in mine if r["delay_ns"] == delay]
            waits = [r["cpu_wait_share"] for r in at
                     if r.get("cpu_wait_share") is not None]
            parts.append("%.1f:%.1f/%.2f/%.0f/%s" % (
                median(r["delay_per_unit_ns"] for r in at) / 1000,
                median(r["time_per_unit_ns"] for r in at) / 1000,
                median(r["cpu_s"] / r["wall_s"] for r in at),
                median(r.get("delayed_calls_per_unit") or 0 for r in at),
                "%.2f" % median(waits) if waits else "-"))
        print("levels %s (delay us a unit: time us a unit/cores/delayed "
              "calls a unit/share waiting for a CPU) %s" % (
                  name, " ".join(parts)))


def speedup_against_real(doc, percent, real_paths):
    _, gains = pooled(real_paths)
    groups = {g["name"]: g for g in doc["analysis"]["groups"]}
    details = []
    for name, answer in sorted(gains.items()):
        g = groups[name]
        [level] = [l for l in g["levels"] if l["percent"] == percent]
        predicted = level["gain_percent"]["value"] if g["valid"] else None
        gain = answer["gain_percent"]
        if predicted is None:
            print("group %s: no valid prediction at %d%%" % (name, percent))
        elif abs(predicted - gain) <= tolerance(gain):
            print("group %s prediction near the real gain" % name)
        else:
            print("group %s prediction off by %.1f points (at most %.1f)" % (
                name, abs(predicted - gain), tolerance(gain)))
        details.append("real %s: %d%% less work %+.1f%%; virtual speedup %s" %
                       (name, percent, gain, "-" if predicted is None else
                        "%+.1f%%" % predicted))
    for line in details:
        print(line)


def sign_of(gain):
    if gain is None:
        return "no prediction"
    if abs(gain) < SLACK_POINTS:
        return "about nothing"
    return "a loss" if gain < 0 else "a gain"


def signs(bumps_path, speedup_path, percent, real_paths):
    """Whether the real gain and both modes' predictions agree in sign: the
    one thing a function whose speedup hurts must get right."""
    _, gains = pooled(real_paths)
    with open(bumps_path) as f:
        bumps = json.load(f)
    with open(speedup_path) as f:
        speedup_doc = json.load(f)
    bump_groups = {g["name"]: g for g in bumps["analysis"]["groups"]}
    speedup_groups = {g["name"]: g for g in speedup_doc["analysis"]["groups"]}
    details = []
    for name, answer in sorted(gains.items()):
        g = bump_groups[name]
        by = {e["percent"]: e for e in g.get("extrapolation", [])
              if e.get("percent")}
        e = by.get(percent)
        bump = e["gain_percent"]["value"] if e and e["valid"] else None
        v = speedup_groups[name]
        [level] = [l for l in v["levels"] if l["percent"] == percent]
        virtual = level["gain_percent"]["value"] if v["valid"] else None
        print("group %s real: %s" % (name, sign_of(answer["gain_percent"])))
        print("group %s speed bumps: %s (%s)" % (name, sign_of(bump),
                                                 g["shape"]))
        print("group %s virtual speedup: %s" % (name, sign_of(virtual)))
        details.append("%s at %d%% less work: real %+.1f%%, speed bumps %s, "
                       "virtual %s; %s" % (
                           name, percent, answer["gain_percent"],
                           "-" if bump is None else "%+.1f%%" % bump,
                           "-" if virtual is None else "%+.1f%%" % virtual,
                           g["verdict"]))
    for line in details:
        print(line)


def main():
    what, path = sys.argv[1], sys.argv[2]
    if what == "signs":
        return signs(path, sys.argv[3], int(sys.argv[4]), sys.argv[5:])
    with open(path) as f:
        doc = json.load(f)
    # The runs the answer stands on: a run disturbed by other processes and
    # made again is kept in sweep.json for the record only.
    runs = [r for r in doc["runs"] if not r.get("disturbed")]
    if what == "stdout":
        import os
        base = os.path.dirname(path)
        for r in sorted(runs, key=lambda r: (r["group"] is None, r["group"] or "",
                                             r["delay_ns"],
                                             r.get("speedup_percent") or 0,
                                             r["repeat"])):
            with open(os.path.join(base, r["folder"], "stdout.txt")) as f:
                lines = f.read().split()
            level = "%d" % r["delay_ns"]
            if r.get("speedup_percent"):
                level = "%d%%" % r["speedup_percent"]
            print("%s %s: %s" % (r["group"] or "unarmed", level,
                                 " ".join(lines)))
        return
    if what == "speedup":
        return speedup(doc, sys.argv[3:])
    if what == "speedup-against-real":
        return speedup_against_real(doc, int(sys.argv[3]), sys.argv[4:])
    if what == "against-real":
        return against_real(doc, int(sys.argv[3]), sys.argv[4:])
    if what == "sizing":
        settings, sizing = doc["settings"], doc["sizing"]
        print("delays %s repeats %s" % (settings["delays_chosen"],
                                        settings["repeats_mode"]))
        print("stop %s after %d rounds" % (sizing["stop"], sizing["rounds"]))
        shapes = {g["name"]: g.get("shape", "-")
                  for g in (doc.get("analysis") or {}).get("groups", [])}
        speedups = settings.get("speedups_percent")
        for g in sizing["groups"]:
            made = [r for r in runs if r["group"] == g["name"] and r["measured"]]
            if speedups:
                least = min(sum(1 for r in made if r["speedup_percent"] == p)
                            for p in speedups)
            else:
                least = min(sum(1 for r in made if r["delay_ns"] == d)
                            for d in g["delays_ns"])
            if least != g["repeats"]:
                fail("%s: %d repeats said, %d made" % (g["name"], g["repeats"],
                                                       least))
            print("group %s %s repeats %d settled %s %s" % (
                g["name"], "speedups " + ",".join(map(str, speedups))
                if speedups else "delays " + ",".join(g["delays"]),
                g["repeats"], "yes" if g["settled"] else "no",
                shapes.get(g["name"], "-")))
        return
    if what == "order":
        for r in runs:
            print("%s %d %d" % (r["group"] or "unarmed", r["delay_ns"],
                                r["repeat"]))
        return
    for r in runs:
        for key in RUN_FIELDS + (MEASURED_FIELDS if r["measured"] else []):
            if key not in r:
                fail("run %d has no '%s'" % (r["index"], key))
    if what == "runs":
        print("runs %d measured %d" % (
            len(runs), sum(1 for r in runs if r["measured"])))
        return
    print("status %s" % doc["status"])
    if doc.get("error"):
        print("error %s" % doc["error"])
    print("runs %d of %d, measured %d" % (
        len(runs), doc["runs_planned"],
        sum(1 for r in runs if r["measured"])))
    machine(doc)
    analysis = doc.get("analysis")
    if not analysis:
        print("no analysis")
        return
    for g in analysis["groups"]:
        pt = g["pass_through"]
        lo, hi = pt["ci"]
        if not (lo <= pt["value"] <= hi):
            fail("%s: pass-through outside its interval" % g["name"])
        line = "group %s shape %s" % (g["name"], g["shape"])
        if g.get("took_turns"):
            line += " (threads took turns)"
        for truth in (0.0, 0.5, 1.0):
            if lo <= truth <= hi:
                line += " covers %.1f" % truth
        print(line)
        if g["shape"] == "threshold":
            print("group %s slack_us %.0f" % (
                g["name"], g["slack_ns_per_call"] / 1000))
    # A group whose threads took turns for a CPU while it was delayed is
    # ranked by the machine's doing, not the program's: left out, and named.
    turned = {g["name"] for g in analysis["groups"] if g.get("took_turns")}
    turns = [n for n in analysis["ranking"] if n in turned]
    print("ranking " + " ".join(
        [n for n in analysis["ranking"] if n not in turns] +
        (["(%s took turns)" % " ".join(turns)] if turns else [])))
    # Last, and not for CHECK lines: what a failure's log needs to tell a
    # faster CPU (less slack per call) from noise (a weak hinge).
    for g in analysis["groups"]:
        hinge = g["fit"]["hinge"]
        if hinge["ok"] and g.get("calls_per_unit") and \
                g.get("target_ns_per_call") is not None:
            print("detail %s: %.2f us a call, hinge knee %.2f us a call, "
                  "p %.3f" % (g["name"], g["target_ns_per_call"] / 1000,
                              hinge["knee_ns_per_unit"] / g["calls_per_unit"]
                              / 1000, hinge["p"]))


if __name__ == "__main__":
    main()
