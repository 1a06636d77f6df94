#!/usr/bin/env python3
"""The floors of include/aoe/ (docs/architecture.md), checked on every #include.

    scripts/check_layers.py [--root DIR] [--graph]

1. A header of a folder includes only headers of its own folder or of a folder on a lower
   level (FLOORS below): no arrow runs back up, so no cycle is possible.
2. A header under a `detail/` folder is included only from that folder's parent and below
   (aoe/repo/detail/x.hpp from aoe/repo/...), by the library, the tools, the examples, the
   benches and the fuzz targets alike. Tests may include any header: they test the inside.

Prints every violation as FILE:LINE: message and exits 1 if there is one, 0 otherwise, 2 on a
bad command line. --graph prints the folder graph that the headers actually have.
"""

import argparse
import os
import re
import sys

# Level of each folder of include/aoe/ (and of the loose headers). A folder may include only
# folders with a strictly smaller level, and itself. The names of the floors are those of
# docs/architecture.md.
FLOORS = {
    # ground: includes nothing of aoe
    "core": 0,
    "version.hpp": 0,
    # vocabulary: the value types and the plumbing every layer uses
    "space": 1,
    "io": 1,
    "config": 1,
    "vocab": 2,
    "op": 3,
    # the tuner: the contract (concepts), stop conditions, results, Tuner
    "tuner": 4,
    # backends and building blocks
    "graph": 5,
    "export": 5,
    "measure": 5,
    "costmodel": 6,
    "repo": 6,
    "observe": 6,
    "search": 7,
    # jobs and integrations
    "jobs": 8,
    "online": 8,
    "experiment": 8,
    "mpi": 9,
    "report": 9,
    # entry headers: <aoe.hpp>, <aoe/simulator.hpp>, ...
    "(entry)": 10,
}

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](aoe(?:/[^>"]+)?\.hpp)[>"]')


def folder_of(rel):
    """'aoe/repo/x.hpp' -> 'repo'; 'aoe/version.hpp' -> 'version.hpp'; 'aoe.hpp' -> '(entry)'."""
    parts = rel.split("/")
    if len(parts) == 1:
        return "(entry)"
    if len(parts) == 2:
        return parts[1] if parts[1] in FLOORS else "(entry)"
    return parts[1]


def detail_owner(rel):
    """The folder a detail header belongs to ('aoe/repo' for 'aoe/repo/detail/x.hpp'), or None."""
    parts = rel.split("/")
    if "detail" not in parts[:-1]:
        return None
    return "/".join(parts[: parts.index("detail")])


def sources(root):
    for top in ("include", "tools", "examples", "bench", "fuzz", "tests"):
        base = os.path.join(root, top)
        for dirpath, dirnames, files in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for f in sorted(files):
                if f.endswith((".hpp", ".cpp", ".h", ".cc")):
                    yield top, os.path.join(dirpath, f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    parser.add_argument("--graph", action="store_true")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    include_dir = os.path.join(root, "include")
    problems = []
    graph = {}
    checked = 0
    for top, path in sources(root):
        rel_file = os.path.relpath(path, include_dir if top == "include" else root)
        here = os.path.dirname(rel_file)  # 'aoe/repo/sqlite' for a library header
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
        for number, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1)
            checked += 1
            where = f"{os.path.relpath(path, root)}:{number}"
            if not os.path.isfile(os.path.join(include_dir, target)):
                continue  # a generated or optional header; the compiler checks it exists
            owner = detail_owner(target)
            if owner is not None and top != "tests" and not (
                    top == "include" and (here == owner or here.startswith(owner + "/"))):
                problems.append(f"{where}: {target} is a detail header of {owner}/ and may be "
                                f"included only from there")
            if top != "include":
                continue
            src, dst = folder_of(rel_file), folder_of(target)
            if src not in FLOORS:
                problems.append(f"{where}: folder aoe/{src}/ has no floor in "
                                f"scripts/check_layers.py (FLOORS) or docs/architecture.md")
                continue
            if dst not in FLOORS:
                problems.append(f"{where}: {target}: folder aoe/{dst}/ has no floor in "
                                f"scripts/check_layers.py (FLOORS)")
                continue
            if src != dst:
                graph.setdefault(src, set()).add(dst)
                if FLOORS[dst] >= FLOORS[src]:
                    problems.append(
                        f"{where}: aoe/{src}/ (level {FLOORS[src]}) includes {target} "
                        f"(aoe/{dst}/, level {FLOORS[dst]}): an include may only go down "
                        f"(docs/architecture.md)")
    if args.graph:
        for src in sorted(graph, key=lambda s: (FLOORS.get(s, 99), s)):
            print(f"{src} ({FLOORS.get(src)}) -> {', '.join(sorted(graph[src]))}")
    for p in problems:
        print(p)
    print(f"check_layers: {checked} includes checked, {len(problems)} violation(s)",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
