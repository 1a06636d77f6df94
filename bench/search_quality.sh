#!/bin/sh
# Search quality against the targets of docs/research.md ("Reproducing the targets"): the
# recorded GPU spaces of ../shared/datasets, and the simulator's ResNet-50 and BERT-base
# operator spaces, from scratch and from the simulator's default configuration.
# Not part of CI: the datasets live outside the repository, and a run takes minutes to hours.
#
#   bench/search_quality.sh [AOE_BENCH] [DATASETS] [OUT_DIR]
#
# AOE_BENCH defaults to build/tools/aoe-bench/aoe-bench or build/tools/aoe-bench (whichever
# exists; build it with -O2 or more), DATASETS to ../shared/datasets/benchmark_hub, OUT_DIR to
# build/search_quality. Environment: REPEATS (30), STRATEGIES (all), THREADS (every core),
# PARTS ("gpu sim sim-default"), MAX_SCORE_EVALUATIONS (1000, GPU spaces).
# Writes OUT_DIR/<part>.json (aoe-bench's JSON), <part>.svg and <part>.txt, and prints per
# part and strategy: the mean over the inputs of the mean fraction of the optimum after 100
# evaluations, the median over the inputs of the median repetition's fraction after 100, how
# many inputs have their median repetition at 98% of the optimum or more after 100, and the
# mean methodology score.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bench=${1:-}
if [ -z "$bench" ]; then
  for candidate in "$here/build/tools/aoe-bench/aoe-bench" "$here/build/tools/aoe-bench" \
                   "$here/build/aoe-bench"; do
    if [ -x "$candidate" ] && [ ! -d "$candidate" ]; then bench=$candidate; break; fi
  done
fi
[ -n "$bench" ] || { echo "search_quality.sh: build aoe-bench first, or pass its path" >&2; exit 2; }
data=${2:-$here/../shared/datasets/benchmark_hub}
out=${3:-$here/build/search_quality}
strategies=${STRATEGIES:-all}
repeats=${REPEATS:-30}
threads=${THREADS:-0}
parts=${PARTS:-gpu sim sim-default}
mkdir -p "$out"

summarise() {
  python3 - "$1" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
rows = {}
for i in d["inputs"]:
    for s in i["strategies"]:
        r = rows.setdefault(s["name"], {"f100": [], "median": [], "score": []})
        r["f100"].append(s["fraction_of_optimum"]["100"])
        best = s["best_so_far_median"][99]
        r["median"].append(i["optimum"] / best if best else 0.0)
        r["score"].append(s["score"])
n = len(d["inputs"])
print("%-14s %8s %8s %8s %8s  (%d inputs)" % ("strategy", "f@100", "median", ">=0.98", "score", n))
for name, r in rows.items():
    print("%-14s %8.4f %8.4f %5d/%-3d %7.3f" % (
        name, sum(r["f100"]) / n, statistics.median(r["median"]),
        sum(1 for x in r["median"] if x >= 0.98), n, sum(r["score"]) / n))
PY
}

for part in $parts; do
  case $part in
    gpu)
      # The 28 brute-forced spaces (kt_cache/ holds copies of four of them).
      set -- "$data"/*.json.gz --budget 200 \
        --max-score-evaluations "${MAX_SCORE_EVALUATIONS:-1000}" ;;
    sim)
      set -- sim:resnet50-conv sim:bert-matmul --budget 200 ;;
    sim-default)
      set -- sim:resnet50-conv sim:bert-matmul --budget 200 --start-from-default ;;
    *)
      echo "search_quality.sh: PARTS: unknown part '$part' (gpu, sim, sim-default)" >&2
      exit 2 ;;
  esac
  "$bench" --input "$@" --strategy "$strategies" --repeats "$repeats" --seed 2024 \
    --threads "$threads" --json "$out/$part.json" --plot "$out/$part.svg" > "$out/$part.txt"
  echo "== $part"
  summarise "$out/$part.json"
done
