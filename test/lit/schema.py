"""The keys of perfcc's trace and summary files, read from the one header that
defines them (common/include/perfcc/OutputSchema.h), so the Python test tools
spell every key as the runtime writes it and perfctl reads it.

    from schema import trace, summary
    doc[summary.Functions][0][summary.InclusiveNs][summary.Total]
"""
import os
import re
import types

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                      "common", "include", "perfcc", "OutputSchema.h")


def _load():
    namespaces = {}
    current = None
    for line in open(HEADER):
        m = re.match(r"namespace (\w+) \{", line)
        if m:
            current = namespaces.setdefault(m.group(1), {})
            continue
        m = re.match(r'constexpr char (\w+)\[\] = "([^"]*)";', line)
        if m and current is not None:
            current[m.group(1)] = m.group(2)
    for name in ("trace", "summary"):
        if not namespaces.get(name):
            raise SystemExit("schema.py: no keys for '%s' in %s" % (name, HEADER))
    return (types.SimpleNamespace(**namespaces["trace"]),
            types.SimpleNamespace(**namespaces["summary"]))


trace, summary = _load()
