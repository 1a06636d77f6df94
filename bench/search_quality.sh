#!/bin/sh
# Search quality on the recorded GPU spaces of ../shared/datasets (docs/research.md, "Targets").
# Not part of CI: the datasets live outside the repository.
#
#   bench/search_quality.sh [AOE_BENCH] [DATASETS] [OUT_DIR]
#
# AOE_BENCH defaults to build/tools/aoe-bench/aoe-bench or build/tools/aoe-bench (whichever
# exists), DATASETS to ../shared/datasets/benchmark_hub, OUT_DIR to build/search_quality.
# Writes OUT_DIR/search_quality.json (aoe-bench's JSON) and OUT_DIR/search_quality.svg, and
# prints per strategy the mean fraction of the optimum after 100 evaluations over all spaces
# and the mean methodology score.
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
mkdir -p "$out"
# The 28 brute-forced spaces (kt_cache/ holds copies of four of them).
set -- "$data"/*.json.gz
"$bench" --input "$@" --strategy "$strategies" --budget 200 --repeats "$repeats" --seed 2024 \
  --max-score-evaluations "${MAX_SCORE_EVALUATIONS:-1000}" \
  --json "$out/search_quality.json" --plot "$out/search_quality.svg" > "$out/search_quality.txt"
python3 - "$out/search_quality.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {}
for i in d["inputs"]:
    for s in i["strategies"]:
        r = rows.setdefault(s["name"], {"f100": [], "score": []})
        r["f100"].append(s["fraction_of_optimum"]["100"])
        r["score"].append(s["score"])
print("%-14s %8s %8s %8s  (%d spaces)" % ("strategy", "f@100", "min", "score", len(d["inputs"])))
for name, r in rows.items():
    print("%-14s %8.4f %8.4f %8.3f" % (name, sum(r["f100"]) / len(r["f100"]), min(r["f100"]),
                                       sum(r["score"]) / len(r["score"])))
PY
