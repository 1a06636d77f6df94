#!/usr/bin/env python3
"""Functions longer than a limit in the library and the tools (docs/architecture.md).

    scripts/function_lengths.py [--max N] [--root DIR] [--all] [PATH...]

Lists every function definition of include/ and tools/ (or of the PATHs given) whose body spans
more than N lines (default 80), longest first, as `LINES FILE:LINE NAME`, and exits 1 if there is
one (0 otherwise, 2 on a bad command line). Lambdas and local classes count as part of the
function around them. The parse is lexical (comments, strings and preprocessor lines removed,
braces matched), not a compiler's: it finds definitions written the way STYLE.md writes them.
"""

import argparse
import os
import re
import sys

NOT_FUNCTIONS = re.compile(
    r"^(?:namespace\b|class\b|struct\b|union\b|enum\b|extern\s*\"C\"|template\s*<[^>]*>\s*"
    r"(?:class|struct|union)\b)")
CONTROL = re.compile(r"^(?:if|for|while|switch|catch|do|else|try|return|case|default)\b")


def strip(text):
    """The text with comments, string/char literals and preprocessor lines blanked, lines kept."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if line_start and c == "#":
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        line_start = c == "\n"
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        m = re.match(r'R"([^(]*)\(', text[i:i + 20])
        if m:
            end = text.find(")" + m.group(1) + '"', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:end]))
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def functions(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = strip(f.read())
    results = []
    depth_stack = []  # for each open brace: True when it opens a function body
    head_start = 0
    in_function = 0
    paren = 0  # open parentheses: a brace inside them is an initializer (`Sink s = {}`)
    for i, c in enumerate(text):
        if c == "(":
            paren += 1
        elif c == ")":
            paren = max(0, paren - 1)
        elif c == "{" and paren > 0:
            depth_stack.append(None)
        elif c == "}" and depth_stack and depth_stack[-1] is None:
            depth_stack.pop()
        elif c == "{":
            is_function = False
            if in_function == 0:
                head = text[head_start:i].strip()
                flat = " ".join(head.split())
                if ("(" in flat and ")" in flat and not NOT_FUNCTIONS.match(flat)
                        and not CONTROL.match(flat) and not flat.endswith("=")
                        and not re.search(r"=\s*$", flat)
                        and not re.match(r"^[^(]*\b(?:requires)\b\s*\(", flat)):
                    is_function = True
            depth_stack.append((is_function, i, head_start))
            if is_function:
                in_function += 1
            head_start = i + 1
        elif c == "}":
            if depth_stack:
                is_function, opened, started = depth_stack.pop()
                if is_function:
                    in_function -= 1
                    first = text.count("\n", 0, started) + 1
                    while first <= text.count("\n", 0, opened) and not text.split("\n")[first - 1].strip():
                        first += 1
                    last = text.count("\n", 0, i) + 1
                    head = " ".join(text[started:opened].split())
                    name = re.findall(r"([~\w:]+(?:<[^()]*>)?|operator\S+)\s*\(", head)
                    results.append((last - first + 1, first, name[0] if name else head[:60]))
            head_start = i + 1
        elif c == ";":
            head_start = i + 1
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=80)
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    parser.add_argument("paths", nargs="*")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    paths = args.paths or [os.path.join(root, "include"), os.path.join(root, "tools")]
    files = []
    for p in paths:
        if os.path.isdir(p):
            for dirpath, dirnames, names in os.walk(p):
                dirnames.sort()
                files += [os.path.join(dirpath, n) for n in sorted(names)
                          if n.endswith((".hpp", ".cpp", ".h"))]
        elif os.path.isfile(p):
            files.append(p)
        else:
            print(f"function_lengths.py: {p}: no such file or directory", file=sys.stderr)
            return 2
    long = []
    for f in files:
        for length, line, name in functions(f):
            if length > args.max:
                long.append((length, os.path.relpath(f, root), line, name))
    long.sort(key=lambda x: (-x[0], x[1], x[2]))
    for length, f, line, name in long:
        print(f"{length:5d} {f}:{line} {name}")
    print(f"function_lengths: {len(long)} function(s) over {args.max} lines", file=sys.stderr)
    return 1 if long else 0


if __name__ == "__main__":
    sys.exit(main())
