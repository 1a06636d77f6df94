#!/usr/bin/env bash
# The project's test command (README): installs the Debian packages if needed, then builds and
# runs every test, each test area compiled once:
#   1. cmake --workflow --preset asan: the library's test areas, compiled by clang 16 with
#      AddressSanitizer + UBSan, every doctest case (except those labelled slow and the few
#      that the asan test preset names: they run in 2);
#   2. cmake --workflow --preset ci: g++ 12, warnings as errors, the tools and their tests,
#      the test areas whose cases 1 leaves out or cannot build (tools, opencl, mpi, search,
#      simulator, sqlite, xgboost: AOE_ONLY_TEST_AREAS), header self-containment, compile-fail tests, examples,
#      benchmarks compile-checked, packaging tests (install + find_package, build tree,
#      pkg-config, add_subdirectory).
# `cmake --workflow --preset dev` builds every area in one g++ build instead (Debug).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/install-deps.sh
start=$SECONDS
echo "== scripts/test.sh 1/2: cmake --workflow --preset asan (clang 16, sanitizers)"
cmake --workflow --preset asan
echo "== scripts/test.sh 1/2: done in $((SECONDS - start)) s"
echo "== scripts/test.sh 2/2: cmake --workflow --preset ci (g++ 12)"
# Nothing after it: the log ends with ctest's summary (.ci/run adds one line, the total time).
cmake --workflow --preset ci
