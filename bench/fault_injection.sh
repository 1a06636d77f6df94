#!/bin/sh
# I/O faults, the full loop (docs/reliability.md, "When the disk fails"): every call of open,
# write, fsync, rename, unlink, flock and mkdir that OPAT, SGAT and GDAT make on the bank and work
# directories fails in turn, once with each errno (ENOSPC, EIO, EROFS, EDQUOT, EACCES, EINTR, a
# short write for writes), on the small model of scripts/fault_injection.py; then every call of
# the three jobs on MODELS (default examples/models/mobilenet_v2.json), one errno each in turn,
# where a run after a fault that stores other values for the same entries is only counted
# (docs/reliability.md says why).
# Then the tuning database (scripts/fault_injection_sqlite.py on tests/sqlite/resume_child.cpp):
# every call SQLite makes on it (fcntl's locks too), one errno each in turn; then every call but
# the locks with every errno.
# Prints the scripts' JSON for each (calls, runs, faults by errno, exit codes, faults absorbed,
# problems, seconds); exits 1 if a check failed. CI runs the short versions (ctest
# fault_injection.short: the small model, one errno per call; fault_injection.sqlite: the
# database without the locks, one errno per call).
#
# Last, aoe::Online's bank write (scripts/fault_injection_online.py): every call with every
# errno, every other fault staying.
#
#   bench/fault_injection.sh [AOE] [SHIM] [MODELS] [CHILD] [ONLINE_CHILD]
#
# AOE defaults to build/ci/tools/aoe, SHIM to build/ci/tests/libaoe_fault_shim.so, CHILD to
# build/ci/tests/aoe_test_sqlite_resume_child, ONLINE_CHILD to
# build/ci/tests/aoe_test_online_fault_child (a part is skipped when its program was not built).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
aoe=${1:-$here/build/ci/tools/aoe}
shim=${2:-$here/build/ci/tests/libaoe_fault_shim.so}
models=${3:-$here/examples/models/mobilenet_v2.json}
child=${4:-$here/build/ci/tests/aoe_test_sqlite_resume_child}
status=0
python3 "$here/scripts/fault_injection.py" --aoe "$aoe" --shim "$shim" --every-errno || status=1
python3 "$here/scripts/fault_injection.py" --aoe "$aoe" --shim "$shim" --models "$models" \
  --values=count || status=1
if [ -x "$child" ]; then
  python3 "$here/scripts/fault_injection_sqlite.py" --child "$child" --shim "$shim" || status=1
  python3 "$here/scripts/fault_injection_sqlite.py" --child "$child" --shim "$shim" \
    --every-errno --calls open,write,pwrite,fsync,fdatasync,ftruncate,rename,unlink,mkdir ||
    status=1
else
  echo "bench/fault_injection.sh: no $child: the tuning database's part skipped" >&2
fi
online=${5:-$here/build/ci/tests/aoe_test_online_fault_child}
if [ -x "$online" ]; then
  python3 "$here/scripts/fault_injection_online.py" --child "$online" --shim "$shim" \
    --every-errno || status=1
else
  echo "bench/fault_injection.sh: no $online: aoe::Online's part skipped" >&2
fi
exit $status
