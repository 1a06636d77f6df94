#!/bin/sh
# Crash consistency, the long run (docs/reliability.md, "Crash consistency"): `aoe` killed with
# SIGKILL at random points of OPAT, SGAT and GDAT on one shared bank, TRIALS times, then ROUNDS
# rounds of WRITERS concurrent jobs on that bank. Prints scripts/crash_consistency.py's JSON
# (trials, kills, lost_entries, invalid_files, failed_verifications,
# temp_files_seen_after_kill, leftover_temp_files, ...); exits 1 if a check failed.
# CI runs a short version (ctest crash_consistency.short).
#
#   bench/crash_consistency.sh [AOE] [TRIALS] [ROUNDS]
#
# AOE defaults to build/ci/tools/aoe, TRIALS to 200, ROUNDS to 20; WRITERS (4) and SEED (1)
# from the environment.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
aoe=${1:-$here/build/ci/tools/aoe}
exec python3 "$here/scripts/crash_consistency.py" --aoe "$aoe" --trials "${2:-200}" \
  --concurrent-rounds "${3:-20}" --writers "${WRITERS:-4}" --seed "${SEED:-1}"
