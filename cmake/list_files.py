#!/usr/bin/env python3
"""File discovery for meson.build (Meson has no glob, by design).

Meson calls this at configure time with run_command(). New files are picked up by
`meson setup --reconfigure <builddir>` (or any change to meson.build); `ninja` alone does not
re-run it. The CMake build discovers the same files with file(GLOB ... CONFIGURE_DEPENDS).

Commands (paths printed relative to the source root, one per line, sorted):
  version <header>                  AOE_VERSION_MAJOR.MINOR.PATCH from include/aoe/version.hpp
  areas <tests-dir> [skip...]       test areas: sub-directories holding *_test.cpp at any depth
  glob <dir> <pattern> [--recursive]  files matching a shell pattern
  tools <tools-dir>                 names of tool directories that contain a main.cpp
  grep <file> <regex>               prints "yes" if the file matches the regex, else "no"
  grep-any <regex> <file>...        prints "yes" if any of the files matches, else "no"
  args <file>                       shell-like split of an examples/<name>.args file, one
                                    argument per line; @EXAMPLES_DIR@ becomes the absolute
                                    path of examples/
"""

import re
import shlex
import sys
from pathlib import Path

# The aoe source root, from this script's location (MESON_SOURCE_ROOT would be the *parent*
# project's root when aoe is a Meson subproject).
SOURCE_ROOT = Path(__file__).resolve().parent.parent


def rel(path: Path) -> str:
    return path.resolve().relative_to(SOURCE_ROOT.resolve()).as_posix()


def cmd_version(header: str) -> None:
    text = (SOURCE_ROOT / header).read_text(encoding="utf-8")
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        match = re.search(rf"^#define AOE_VERSION_{part} +([0-9]+) *$", text, re.MULTILINE)
        if not match:
            sys.exit(f"list_files.py: AOE_VERSION_{part} not found in {header}")
        parts.append(match.group(1))
    print(".".join(parts))


def cmd_areas(tests_dir: str, *skip: str) -> None:
    root = SOURCE_ROOT / tests_dir
    for child in sorted(p for p in root.iterdir() if p.is_dir()):
        if child.name in skip:
            continue
        if any(child.rglob("*_test.cpp")):
            print(child.name)


def cmd_glob(directory: str, pattern: str, *flags: str) -> None:
    root = SOURCE_ROOT / directory
    if not root.is_dir():
        return
    matches = root.rglob(pattern) if "--recursive" in flags else root.glob(pattern)
    # Not below a hidden directory (bench/peers/run's .venv holds packages with .cpp files).
    hidden = lambda p: any(part.startswith(".") for part in p.relative_to(root).parts[:-1])
    for path in sorted(p for p in matches if p.is_file() and not hidden(p)):
        print(rel(path))


def cmd_tools(tools_dir: str) -> None:
    root = SOURCE_ROOT / tools_dir
    if not root.is_dir():
        return
    for child in sorted(p for p in root.iterdir() if p.is_dir()):
        if (child / "main.cpp").is_file():
            print(child.name)


def cmd_grep(path: str, regex: str) -> None:
    text = (SOURCE_ROOT / path).read_text(encoding="utf-8", errors="replace")
    print("yes" if re.search(regex, text, re.MULTILINE) else "no")


def cmd_grep_any(regex: str, *paths: str) -> None:
    for path in paths:
        text = (SOURCE_ROOT / path).read_text(encoding="utf-8", errors="replace")
        if re.search(regex, text, re.MULTILINE):
            print("yes")
            return
    print("no")


def cmd_args(path: str) -> None:
    text = (SOURCE_ROOT / path).read_text(encoding="utf-8")
    text = text.replace("@EXAMPLES_DIR@", (SOURCE_ROOT / "examples").as_posix())
    for arg in shlex.split(text):
        print(arg)


COMMANDS = {
    "args": cmd_args,
    "version": cmd_version,
    "areas": cmd_areas,
    "glob": cmd_glob,
    "tools": cmd_tools,
    "grep": cmd_grep,
    "grep-any": cmd_grep_any,
}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    COMMANDS[sys.argv[1]](*sys.argv[2:])
