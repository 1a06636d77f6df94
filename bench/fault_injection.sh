#!/bin/sh
# I/O faults, the full loop (docs/reliability.md, "When the disk fails"): every call of open,
# write, fsync, rename, unlink, flock and mkdir that OPAT, SGAT and GDAT make on the bank and work
# directories fails in turn, once with each errno (ENOSPC, EIO, EROFS, EDQUOT, EACCES, EINTR, a
# short write for writes), on the small model of scripts/fault_injection.py; then every call of
# the three jobs on MODELS (default examples/models/mobilenet_v2.json), one errno each in turn,
# where a run after a fault that stores other values for the same entries is only counted
# (docs/reliability.md says why).
# Prints scripts/fault_injection.py's JSON for each (calls, runs, faults by errno, exit codes,
# faults absorbed, problems, seconds); exits 1 if a check failed. CI runs the short version
# (ctest fault_injection.short: the small model, one errno per call).
#
#   bench/fault_injection.sh [AOE] [SHIM] [MODELS]
#
# AOE defaults to build/ci/tools/aoe, SHIM to build/ci/tests/libaoe_fault_shim.so.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
aoe=${1:-$here/build/ci/tools/aoe}
shim=${2:-$here/build/ci/tests/libaoe_fault_shim.so}
models=${3:-$here/examples/models/mobilenet_v2.json}
status=0
python3 "$here/scripts/fault_injection.py" --aoe "$aoe" --shim "$shim" --every-errno || status=1
python3 "$here/scripts/fault_injection.py" --aoe "$aoe" --shim "$shim" --models "$models" \
  --values=count || status=1
exit $status
