"""Checks that the repository's own documents point only at what exists in it.

  repo_paths.py code-map ROOT     every path the code map of docs/architecture.md
                                  names exists (a row's key files are relative
                                  to its folder; `a.{h,cpp}` names both)
  repo_paths.py outside ROOT      no tracked file refers to a file outside the
                                  repository (../shared/, a design note that
                                  only the team has) and every relative link
                                  in docs/ and README.md resolves

Prints one line per problem and exits 1 if there is any; else a count.
"""
import glob
import os
import re
import subprocess
import sys


def expand(token):
    """`a.{h,cpp}` -> [a.h, a.cpp]; anything else -> [token]."""
    m = re.match(r"^(.*)\{([^}]*)\}(.*)$", token)
    if not m:
        return [token]
    return [m.group(1) + alt + m.group(3) for alt in m.group(2).split(",")]


def looks_like_path(token):
    return "/" in token or re.search(r"\.(h|cpp|c|inc|py|sh|mjs|cmake|md|targets|json|txt)$",
                                     token) is not None or "{" in token


def code_map(root):
    text = open(os.path.join(root, "docs", "architecture.md")).read()
    section = text.split("## Code map", 1)[1].split("\n## ", 1)[0]
    problems, checked = [], 0
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        folder = cells[0].strip("`")
        if not os.path.isdir(os.path.join(root, folder)):
            problems.append("code map: folder %s does not exist" % folder)
            continue
        for cell in cells[1:]:
            for token in re.findall(r"`([^`]+)`", cell):
                if not looks_like_path(token) or token.startswith(("PERFCC_", "lib", "perf-")):
                    continue
                for path in expand(token):
                    checked += 1
                    here = os.path.join(root, folder, path)
                    if not (glob.glob(here) or glob.glob(os.path.join(root, path))):
                        problems.append("code map row %s: %s does not exist" % (folder, path))
    return problems, checked


def outside(root):
    files = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split()
    problems, checked = [], 0
    pointer = re.compile(r"\.\./shared\b|\bshared/(DESIGN|STYLE)\.md|\b(DESIGN|STYLE)\.md\b")
    me = os.path.relpath(os.path.abspath(__file__), root)
    for rel in files:
        if rel == me or rel.startswith("test/engine/golden/") or not os.path.isfile(os.path.join(root, rel)):
            continue
        try:
            text = open(os.path.join(root, rel), encoding="utf-8").read()
        except UnicodeDecodeError:
            continue
        checked += 1
        for n, line in enumerate(text.splitlines(), 1):
            if pointer.search(line):
                problems.append("%s:%d: points outside the repository: %s" % (rel, n, line.strip()))
        if rel.endswith(".md"):
            for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
                if re.match(r"^[a-z]+:", target):
                    continue  # a URL
                path = os.path.normpath(os.path.join(root, os.path.dirname(rel), target))
                if not path.startswith(os.path.abspath(root) + os.sep) or not os.path.exists(path):
                    problems.append("%s: link %s does not resolve inside the repository" % (rel, target))
    return problems, checked


def main():
    mode, root = sys.argv[1], os.path.abspath(sys.argv[2])
    problems, checked = {"code-map": code_map, "outside": outside}[mode](root)
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print("%s: %d checked, all inside the repository" % (mode, checked))


if __name__ == "__main__":
    main()
