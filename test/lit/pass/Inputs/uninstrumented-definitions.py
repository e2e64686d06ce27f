"""Reads LLVM IR text (modules concatenated, compiled with -g) and counts the
function definitions that an instrumenter could reach: those that lack an
attribute (XRay's xray-never) or that call a probe (-finstrument-functions'
__cyg_profile_func_enter).

Compiler-generated definitions are counted apart: implicit members
(DIFlagArtificial) and functions with no source at all (static initializers,
__clang_call_terminate) cannot carry a source attribute.

Usage: uninstrumented-definitions.py FILE.ll (--attribute TEXT | --no-call SYMBOL)
Prints "N written definitions, M reachable" and each reachable name, then
"K compiler-generated".
"""
import re
import sys

path, mode, value = sys.argv[1], sys.argv[2], sys.argv[3]
written = generated = 0
reachable = []
# Attribute groups and metadata numbers restart in every module.
for module in re.split(r"^; ModuleID = ", open(path).read(), flags=re.M)[1:]:
    groups = dict(re.findall(r"^attributes #(\d+) = \{(.*)\}$", module, re.M))
    subprograms = dict(re.findall(r"^!(\d+) = distinct !DISubprogram\((.*)\)$", module, re.M))
    for body in re.finditer(r"^define [^@]*@(\"[^\"]+\"|[\w.$]+)\((.*)$\n(?:.*\n)*?^\}$", module, re.M):
        name, header = body.group(1), body.group(2)
        dbg = re.search(r"!dbg !(\d+)", header)
        if not dbg or "DIFlagArtificial" in subprograms.get(dbg.group(1), ""):
            generated += 1
            continue
        written += 1
        if mode == "--attribute":
            group = re.search(r" #(\d+)[ {]", header)
            bad = not group or value not in groups.get(group.group(1), "")
        else:
            bad = ("@" + value + "(") in body.group(0)
        if bad:
            reachable.append(name)
print("%d written definitions, %d reachable" % (written, len(reachable)))
for name in reachable:
    print("  " + name)
print("%d compiler-generated" % generated)
