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
# PARTS ("gpu sim sim-default heldout-gpu heldout-sim heldout-sim-default"),
# MAX_SCORE_EVALUATIONS (1000; GPU and held-out spaces).
# Writes OUT_DIR/<part>.json (aoe-bench's JSON), <part>.svg and <part>.txt, and prints per
# part and strategy: the mean over the inputs of the mean fraction of the optimum after 25, 50,
# 100 and 200 evaluations and the mean methodology score, each with its 95% percentile-bootstrap
# interval over the repetitions (aoe-bench's "summary" block: each input's repetitions
# resampled on their own), the median over the inputs of the median repetition's fraction
# after 100, and how many inputs have their median repetition at 98% of the optimum or more
# after 100.
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
parts=${PARTS:-gpu sim sim-default heldout-gpu heldout-sim heldout-sim-default}
mkdir -p "$out"

summarise() {
  python3 - "$1" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
rows = {}
for i in d["inputs"]:
    for s in i["strategies"]:
        r = rows.setdefault(s["name"], {"median": []})
        best = s["best_so_far_median"][99]
        r["median"].append(i["optimum"] / best if best else 0.0)
n = len(d["inputs"])
boot = d["settings"]["bootstrap"]
print("mean over the %d inputs; [95%% interval: %s, %d resamples, seed %d]" % (
    n, boot["method"], boot["resamples"], boot["seed"]))
def fmt(x, ci):
    return "%.3f [%.3f, %.3f]" % (x, ci[0], ci[1]) if ci else "%.3f" % x
for s in d["summary"]:
    f, ci = s["fraction_of_optimum"], s["ci95"]["fraction_of_optimum"]
    cells = ["f@%s %s" % (k, fmt(f[k], ci.get(k))) for k in ("25", "50", "100", "200") if k in f]
    med = rows[s["name"]]["median"]
    print("%-13s %s  median run@100 %.3f  >=0.98 %d/%d  score %s" % (
        s["name"], "  ".join(cells), statistics.median(med), sum(1 for x in med if x >= 0.98),
        n, fmt(s["score"], s["ci95"]["score"])))
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
    # Held out: spaces no policy setting was chosen on (docs/research.md, "Which spaces chose
    # the settings"). KTT's Coulomb sum, and the same operators on another SoC.
    heldout-gpu)
      set -- "$data"/../ktt/*.json.gz --budget 200 \
        --max-score-evaluations "${MAX_SCORE_EVALUATIONS:-1000}" ;;
    heldout-sim)
      set -- sim:resnet50-conv@Ascend310P3 sim:bert-matmul@Ascend310P3 --budget 200 \
        --max-score-evaluations "${MAX_SCORE_EVALUATIONS:-1000}" ;;
    heldout-sim-default)
      set -- sim:resnet50-conv@Ascend310P3 sim:bert-matmul@Ascend310P3 --budget 200 \
        --max-score-evaluations "${MAX_SCORE_EVALUATIONS:-1000}" --start-from-default ;;
    *)
      echo "search_quality.sh: PARTS: unknown part '$part' (gpu, sim, sim-default," \
           "heldout-gpu, heldout-sim, heldout-sim-default)" >&2
      exit 2 ;;
  esac
  "$bench" --input "$@" --strategy "$strategies" --repeats "$repeats" --seed 2024 \
    --threads "$threads" --json "$out/$part.json" --plot "$out/$part.svg" > "$out/$part.txt"
  echo "== $part"
  summarise "$out/$part.json"
done
