#!/usr/bin/env bash
# The project's test command (README): installs the Debian packages if needed, then
# configures, builds and runs every test with the `ci` preset:
#   unit tests (per doctest case), header self-containment, compile-fail tests, examples,
#   packaging tests (install + find_package, build tree, pkg-config, add_subdirectory).
# Equivalent to `cmake --workflow --preset ci` once the packages are installed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/install-deps.sh
cmake --workflow --preset ci
