#!/usr/bin/env bash
# The long fuzzing run: every target for $1 seconds (default 1800) — fuzz/run.sh with a longer
# time, its working corpora kept in build/fuzz/corpus/ between runs.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" "${1:-1800}" "${2:-build/fuzz}"
