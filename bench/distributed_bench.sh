#!/bin/sh
# Distributed OPAT's scaling (docs/distributed.md, "Measured scaling"): the same OPAT job under
# `mpirun --oversubscribe -np N aoe ... --measure_latency=S` at N = 1, 2, 4 and 8 ranks, each
# on a fresh bank; checks that every run wrote the 1-rank run's bank, result file and tuned
# model, and prints scripts/distributed_bench.py's JSON:
#   {"results": [{"ranks", "wall_seconds", "speedup", "efficiency"}, ...], "model", ...}
# Exits 1 if a run failed or an output differed.
#
#   bench/distributed_bench.sh [AOE] [MODEL] [LATENCY]
#
# AOE defaults to build/ci/tools/aoe (a build with aoe::mpi), MODEL to resnet50 (a model of
# examples/models), LATENCY to 0.4 seconds (1 rank: about 126 s); BUDGET (8), SEED (1) and
# RANKS (1,2,4,8) from the environment.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
exec python3 "$here/scripts/distributed_bench.py" --aoe "${1:-$here/build/ci/tools/aoe}" \
  --model "${2:-resnet50}" --measure-latency "${3:-0.4}" --budget "${BUDGET:-8}" \
  --seed "${SEED:-1}" --ranks "${RANKS:-1,2,4,8}"
