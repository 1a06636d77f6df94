#!/bin/bash
# Which search policy an `aoe --objective` job should use (docs/energy.md, "Which search for
# energy"): every `--search` policy tunes each bundled model's operators for each objective, for
# each seed, every job on an empty bank; prints JSON with the model's energy (mJ) and time (ms)
# after each job and the job's wall seconds, and per (model, objective, search) the mean over
# the seeds, the minimum and the maximum of the objective's figure (energy: mJ; edp: mJ x ms).
# Not part of CI: its 108 jobs took 475 s on 2 cores with the ci preset's build (2026-12-07).
#
#   bench/objective_search.sh [AOE] [OUT_JSON]
#
# AOE defaults to build/ci/tools/aoe (cmake --preset ci && cmake --build build/ci --target
# aoe_tool_aoe), OUT_JSON to build/objective_search.json. Environment: MODELS ("resnet50
# mobilenet_v2 bert_base", from examples/models), OBJECTIVES ("energy edp"), SEARCHES
# ("analytic evolutionary bayesian ensemble annealing random"), SEEDS ("0 1 2"), SOC
# (Ascend310P3: 15 W of static power, a real time-energy trade-off).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
aoe=${1:-$here/build/ci/tools/aoe}
out=${2:-$here/build/objective_search.json}
[ -x "$aoe" ] || { echo "objective_search.sh: no aoe at $aoe (build it, or pass its path)" >&2; exit 2; }
models=${MODELS:-resnet50 mobilenet_v2 bert_base}
objectives=${OBJECTIVES:-energy edp}
searches=${SEARCHES:-analytic evolutionary bayesian ensemble annealing random}
seeds=${SEEDS:-0 1 2}
soc=${SOC:-Ascend310P3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rows="$work/rows.jsonl"
: > "$rows"
for model in $models; do
  for objective in $objectives; do
    for search in $searches; do
      for seed in $seeds; do
        job="$work/job"
        rm -rf "$job"
        mkdir -p "$job/bank"
        start=$(date +%s.%N)
        if ! TUNE_BANK_PATH="$job/bank" ASCEND_WORK_PATH="$job/work" "$aoe" \
             --model="$here/examples/models/$model.json" --job_type=2 --soc_version="$soc" \
             --objective="$objective" --search="$search" --seed="$seed" --progress_bar=off \
             > "$job/out.txt" 2>&1; then
          echo "objective_search.sh: $model $objective $search $seed failed:" >&2
          tail -5 "$job/out.txt" >&2
          exit 1
        fi
        end=$(date +%s.%N)
        python3 - "$job/work" "$model" "$objective" "$search" "$seed" "$start" "$end" >> "$rows" <<'PY'
import glob, json, sys
work, model, objective, search, seed, start, end = sys.argv[1:]
result = json.load(open(glob.glob(work + "/aoe_result_opat_*.json")[0]))
opat = list(result.values())[0][1]["OPAT"]
print(json.dumps({"model": model, "objective": objective, "search": search, "seed": int(seed),
                  "energy_before_mj": opat["model_baseline_energy(mJ)"],
                  "energy_after_mj": opat["model_result_energy(mJ)"],
                  "time_after_ms": opat["model_result_performance(ms)"],
                  "wall_seconds": round(float(end) - float(start), 3)}))
PY
        echo "objective_search.sh: $model $objective $search seed $seed done" >&2
      done
    done
  done
done
mkdir -p "$(dirname "$out")"
python3 - "$rows" "$out" <<'PY'
import json, sys
from collections import defaultdict
rows = [json.loads(line) for line in open(sys.argv[1])]
groups = defaultdict(list)
for r in rows:
    figure = r["energy_after_mj"] * (r["time_after_ms"] if r["objective"] == "edp" else 1)
    groups[(r["model"], r["objective"], r["search"])].append((figure, r["wall_seconds"]))
summary = [{"model": m, "objective": o, "search": s,
            "mean": sum(f for f, _ in v) / len(v), "min": min(f for f, _ in v),
            "max": max(f for f, _ in v), "wall_seconds": sum(w for _, w in v) / len(v)}
           for (m, o, s), v in groups.items()]
text = json.dumps({"jobs": rows, "summary": summary}, indent=1)
open(sys.argv[2], "w").write(text + "\n")
print(text)
PY
