#!/usr/bin/env bash
# Checks bench/cuda/kernel_tuner_gemm.py without a GPU; prints PASS/FAIL per check
# and exits non-zero if any check failed.
#
#   bench/cuda/test_kernel_tuner_gemm.sh [WHEEL_DIR]     (default: .whl)
#
# Needs CPython >= 3.11 (python3.12 preferred, as on the GPU machine) and the
# wheels of scripts/fetch-gpu-wheels.sh (fetched first if WHEEL_DIR has none).
# Makes a venv ($KTVENV, default /tmp/ktvenv), installs numpy there from PyPI if
# it is missing (the GPU machine has its own), then the wheels with --no-index
# --no-deps exactly as on the GPU machine.  Checks: --help, --list-strategies
# (finds the LLM-generated strategies), spec validation (bad fields exit 2 and
# name the field), exit 3 without CuPy, and an end-to-end run in Kernel
# Tuner's simulation mode, which replays a generated cache file: this exercises
# the membership restriction callable in Kernel Tuner's Searchspace, the
# per-strategy runs, the per-budget bookkeeping and a failing strategy (skopt,
# whose scikit-optimize dependency is not shipped) reported as an error row.
#
# Kernel Tuner facts relied on (1.5.0): cache file = {"device_name",
# "kernel_name", "problem_size", "tune_params_keys", "tune_params", "objective",
# "cache": {"v1,v2,...": {params..., "time", "times", "compile_time",
# "verification_time", "benchmark_time", "strategy_time", "framework_time",
# "timestamp"}}}; a failed entry has "time" (and "__error__") set to
# "CompilationFailedConfig"/"RuntimeFailedConfig"/"InvalidConfig".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

wheels="${1:-.whl}"
venv="${KTVENV:-/tmp/ktvenv}"
script=bench/cuda/kernel_tuner_gemm.py
failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

if [[ ! -f "$wheels/requirements.txt" ]]; then
    scripts/fetch-gpu-wheels.sh "$wheels" >/dev/null || { echo "FAIL: fetching wheels"; exit 1; }
fi

py=""
for cand in python3.12 /root/.pyenv/versions/3.12*/bin/python3.12 python3.13 python3.11 python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        py="$cand"; break
    fi
done
[[ -n "$py" ]] || { echo "FAIL: no CPython >= 3.11 found"; exit 1; }

if [[ ! -x "$venv/bin/python" ]]; then
    "$py" -m venv "$venv" || { echo "FAIL: creating venv $venv"; exit 1; }
fi
vpy="$venv/bin/python"
"$vpy" -c 'import numpy' 2>/dev/null || "$vpy" -m pip install -q --disable-pip-version-check 'numpy>=2' \
    || { echo "FAIL: installing numpy into $venv"; exit 1; }
if "$vpy" -m pip install -q --disable-pip-version-check --no-index --no-deps --find-links "$wheels" \
        -r "$wheels/requirements.txt"; then
    pass "offline install of the pinned wheels into $venv ($("$vpy" --version))"
else
    fail "offline install of the pinned wheels"; exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Sample spec, kernel stub and a simulated cache of every valid configuration.
"$vpy" - "$work" <<'EOF'
import itertools, json, sys
from datetime import datetime, timezone
from pathlib import Path

work = Path(sys.argv[1])
(work / "aoe_gemm.cu").write_text(
    'extern "C" __global__ void aoe_gemm_defines(int M, int N, int K, const float* A, const float* B, float* C) {}\n'
)
tune_params = {"BM": [32, 64, 128], "BN": [32, 64, 128], "BK": [8, 16], "TX": [8, 16], "TY": [8, 16],
               "VEC": [1, 2, 4], "DB": [0, 1]}
names = list(tune_params)
configs = [c for c in itertools.product(*tune_params.values())
           if c[0] % c[4] == 0 and c[1] % (c[3] * c[2] // 8) == 0 and (c[1] // c[3]) % c[5] == 0
           and not (c[0] == 128 and c[1] == 128 and c[2] == 16 and c[6] == 1)]
m = n = k = 256
spec = {"kernel_source": "aoe_gemm.cu", "kernel_name": "aoe_gemm_defines",
        "compiler_options": ["-DAOE_GEMM_DEFINES_ENTRY=1", "-std=c++17"], "m": m, "n": n, "k": k,
        "tune_params": tune_params, "configurations": [list(c) for c in configs],
        "block_size_names": ["TX", "TY"], "grid_div_x": ["BN"], "grid_div_y": ["BM"],
        "seed": 1, "budgets": [10, 25, 50],
        "strategies": ["random_sample", "genetic_algorithm", "bayes_opt", "adaptive_tabu_greywolf", "skopt"],
        "atol": 0.01}
(work / "kernel_tuner_spec.json").write_text(json.dumps(spec))
cache = {}
stamp = str(datetime(2020, 1, 1, tzinfo=timezone.utc))
for i, c in enumerate(configs):
    entry = dict(zip(names, c))
    if i % 17 == 3:  # some compile failures
        entry.update(time="CompilationFailedConfig", compile_time=900.0,
                     verification_time=0, benchmark_time=0)
    else:
        t = 0.05 + 0.001 * ((i * 7919) % 97)
        entry.update(time=t, times=[t] * 7, compile_time=400.0 + i, verification_time=2.0,
                     benchmark_time=7 * t)
    entry.update(strategy_time=0, framework_time=0, timestamp=stamp)
    cache[",".join(str(v) for v in c)] = entry
(work / "cache.json").write_text(json.dumps({
    "device_name": "Simulated H100", "kernel_name": "aoe_gemm_defines", "problem_size": [n, m],
    "tune_params_keys": names, "tune_params": tune_params, "objective": "time", "cache": cache}))
print(len(configs), file=(work / "nconfigs").open("w"))
EOF

run() { "$vpy" "$script" "$@" >"$work/out" 2>"$work/err"; echo $?; }

[[ "$(run --help)" == 0 ]] && grep -q -- "--spec" "$work/out" && pass "--help" || fail "--help"

if [[ "$(run --list-strategies)" == 0 ]] && grep -q "hybrid_vndx .*LLM-generated" "$work/out" \
        && grep -q "adaptive_tabu_greywolf .*LLM-generated" "$work/out" && grep -q "bayes_opt  *ok" "$work/out"; then
    pass "--list-strategies finds hybrid_vndx and adaptive_tabu_greywolf (LLM-generated), bayes_opt available"
else
    fail "--list-strategies"; cat "$work/out" "$work/err"
fi

# Bad inputs: each must exit 2 with a message naming the file and field.
bad_spec() {  # NAME PYTHON-EXPR-MUTATING-s EXPECTED-TEXT
    "$vpy" - "$work" "$2" <<'EOF'
import json, sys
from pathlib import Path
work = Path(sys.argv[1])
s = json.loads((work / "kernel_tuner_spec.json").read_text())
exec(sys.argv[2])
(work / "bad.json").write_text(json.dumps(s) if isinstance(s, dict) else s)
EOF
    local rc; rc="$(run --spec "$work/bad.json" --simulate "$work/cache.json")"
    if [[ "$rc" == 2 ]] && grep -q "bad.json" "$work/err" && grep -qF -- "$3" "$work/err"; then
        pass "bad spec ($1) -> exit 2: $(cat "$work/err")"
    else
        fail "bad spec ($1): exit $rc, stderr: $(cat "$work/err")"
    fi
}
bad_spec "missing m" 'del s["m"]' "'m'"
bad_spec "negative n" 's["n"] = -4' "'n'"
bad_spec "config value outside tune_params" 's["configurations"][0][2] = 12' "configurations[0][2]"
bad_spec "config arity" 's["configurations"][1] = [32, 32]' "configurations[1]"
bad_spec "unknown strategy" 's["strategies"] = ["no_such_strategy"]' "no_such_strategy"
bad_spec "block size name" 's["block_size_names"] = ["TZ"]' "block_size_names"
bad_spec "missing kernel file" 's["kernel_source"] = "nope.cu"' "kernel_source"
bad_spec "not JSON" 's = "{ not json"' "not valid JSON"
rc="$(run --spec "$work/kernel_tuner_spec.json" --strategies random_sample,bogus --simulate "$work/cache.json")"
[[ "$rc" == 2 ]] && grep -q "bogus" "$work/err" && pass "--strategies with unknown name -> exit 2" \
    || fail "--strategies unknown: exit $rc"

if "$vpy" -c 'import cupy' 2>/dev/null; then
    echo "SKIP: exit 3 without CuPy (CuPy is importable here)"
else
    rc="$(run --spec "$work/kernel_tuner_spec.json" --json "$work/gpu.json")"
    [[ "$rc" == 3 ]] && grep -qi "cupy" "$work/err" && pass "no CuPy -> exit 3: $(cat "$work/err")" \
        || fail "no CuPy: exit $rc, $(cat "$work/err")"
fi

# End to end in simulation mode.
rc="$(run --spec "$work/kernel_tuner_spec.json" --simulate "$work/cache.json" --json "$work/sim.json" --time-limit 600)"
if [[ "$rc" != 0 ]]; then
    fail "simulation run: exit $rc"; cat "$work/err"
else
    pass "simulation run (stderr: $(tr '\n' ' ' <"$work/err"))"
    if "$vpy" - "$work" <<'EOF'
import json, sys
from pathlib import Path
work = Path(sys.argv[1])
rep = json.loads((work / "sim.json").read_text())
spec = json.loads((work / "kernel_tuner_spec.json").read_text())
cache = json.loads((work / "cache.json").read_text())["cache"]
flops = 2.0 * spec["m"] * spec["n"] * spec["k"]
errors = []
def check(cond, msg):
    if not cond:
        errors.append(msg)
check(rep["tool"] == "kernel_tuner" and rep["version"] == "1.5.0", "tool/version")
check(rep["device"] == "Simulated H100", f"device {rep['device']}")
check(rep["searchspace_size"] == len(spec["configurations"]),
      f"searchspace {rep['searchspace_size']} != {len(spec['configurations'])} configurations")
strategies = spec["strategies"] + ["hybrid_vndx"]
check([d["strategy"] for d in rep["runs"]] == strategies, f"runs {[d['strategy'] for d in rep['runs']]}")
check(len(rep["results"]) == len(strategies) * len(spec["budgets"]), "row count")
fields = {"kernel", "tuner", "evaluations", "best_gflops", "wall_seconds", "compile_seconds", "failed"}
best_possible = max(flops / (e["time"] * 1e-3) * 1e-9 for e in cache.values() if isinstance(e["time"], float))
for s in strategies:
    rows = [r for r in rep["results"] if r["tuner"] == f"kernel_tuner:{s}"]
    check([r["evaluations"] for r in rows] == spec["budgets"], f"{s}: budgets")
    for r in rows:
        check(fields <= set(r), f"{s}: fields {set(r)}")
        check(r["kernel"] == "aoe_gemm", f"{s}: kernel")
    detail = next(d for d in rep["runs"] if d["strategy"] == s)
    if s == "skopt":
        check(all("error" in r and r["best_gflops"] is None for r in rows), "skopt should be an error row")
        continue
    check(all("error" not in r for r in rows), f"{s}: unexpected error {rows[0].get('error')}")
    check(detail["distinct_evaluations"] >= spec["budgets"][-1] - 2,
          f"{s}: only {detail['distinct_evaluations']} distinct evaluations")
    g = [r["best_gflops"] for r in rows]
    check(all(x is not None and 0 < x <= best_possible * (1 + 1e-9) for x in g), f"{s}: gflops {g}")
    check(g == sorted(g), f"{s}: best_gflops not monotone over budgets: {g}")
    w = [r["wall_seconds"] for r in rows]
    check(w == sorted(w) and w[0] >= 0, f"{s}: wall not monotone {w}")
    c = [r["compile_seconds"] for r in rows]
    check(c == sorted(c) and c[0] >= 0.4 * min(spec["budgets"][0], detail["distinct_evaluations"]),
          f"{s}: compile seconds {c}")
    check(all(0 <= r["failed"] <= r["evaluations"] for r in rows), f"{s}: failed counts")
    best = detail["best_config"]
    key = ",".join(str(best[p]) for p in spec["tune_params"])
    check(abs(flops / (cache[key]["time"] * 1e-3) * 1e-9 - g[-1]) < 1e-6 * g[-1],
          f"{s}: best_config does not match the best row")
    check(detail["wall_seconds_method"] == "scaled", f"{s}: stale cache timestamps must not be used")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"{len(strategies)} strategies x {len(spec['budgets'])} budgets checked")
EOF
    then pass "simulation report: fields, budgets, monotone best/wall/compile, best_config, error row"
    else fail "simulation report contents"; fi
fi

# Units of the GPU path with numpy standing in for CuPy: the verification
# recorder/observer and the bookkeeping with real timestamps, revisits,
# failures and wrong results.
if "$vpy" - "$work" "$script" <<'EOF'
import importlib.util, sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
import numpy as np
work, script = Path(sys.argv[1]), sys.argv[2]
spec_mod = importlib.util.spec_from_file_location("ktg", script)
ktg = importlib.util.module_from_spec(spec_mod); sys.modules["ktg"] = ktg; spec_mod.loader.exec_module(ktg)
spec = ktg.load_spec(work / "kernel_tuner_spec.json", ktg.available_strategies())
ref = np.arange(12, dtype=np.float32).reshape(3, 4)
rec = ktg.VerificationRecorder(np, ref, atol=0.01, rtol=0.0)
obs = rec.observer()
assert rec.verify([None] * 5 + [ref], [None] * 5 + [ref + 0.005], atol=0.01) is True
assert obs.get_results() == {"aoe_verified": 1}
assert rec.verify([None] * 5 + [ref], [None] * 5 + [ref + 0.5], atol=0.01) is True
assert obs.get_results() == {"aoe_verified": 0}
bad = ref.copy(); bad[0, 0] = np.nan
rec.verify([None] * 5 + [ref], [None] * 5 + [bad])
assert obs.get_results() == {"aoe_verified": 0}, "NaN must fail"
names = list(spec.tune_params)
cfg = [dict(zip(names, c)) for c in spec.configurations[:5]]
t0 = datetime.now(timezone.utc)
def res(i, t, **extra):
    r = dict(cfg[i]); r.update(time=t, compile_time=1000.0, timestamp=str(t0 + timedelta(seconds=i + 1)))
    r.update(extra); return r
run = ktg.StrategyRun("x", results=[
    res(0, 1.0), res(1, 0.5, aoe_verified=0), res(0, 1.0),   # a wrong result; a revisit of 0
    res(2, 2.0, __error__="CompilationFailedConfig"), res(3, 0.8), res(4, 0.25)], wall_seconds=10.0, start=t0)
spec.budgets = [1, 3, 4, 10]
rows, detail = ktg.summarize(spec, run)
g = lambda ms: spec.flops / (ms * 1e-3) * 1e-9
assert [r["best_gflops"] for r in rows] == [g(1.0), g(1.0), g(0.8), g(0.25)], rows
assert [r["failed"] for r in rows] == [0, 2, 2, 2], rows
assert [round(r["wall_seconds"], 3) for r in rows] == [1.0, 3.0, 4.0, 5.0], rows
assert [r["compile_seconds"] for r in rows] == [1.0, 3.0, 4.0, 5.0], rows
assert detail["distinct_evaluations"] == 5 and detail["wall_seconds_method"] == "timestamps"
assert detail["unverified"] == 1 and detail["best_config"] == cfg[4]
EOF
then pass "verification recorder/observer and per-budget bookkeeping (timestamps, revisits, failures)"
else fail "GPU-path units"; fi

# A time limit far below the work (strategy stops gracefully or reports an error row).
rc="$(run --spec "$work/kernel_tuner_spec.json" --simulate "$work/cache.json" --json "$work/tl.json" \
      --strategies random_sample --time-limit 2)"
if [[ "$rc" == 0 ]] && "$vpy" -c "
import json, sys
r = json.load(open('$work/tl.json'))
d = r['runs'][0]
sys.exit(0 if 'error' not in d and 0 < d['distinct_evaluations'] < 50 else 1)"; then
    pass "--time-limit stops the strategy early ($(grep -o 'random_sample: .*' "$work/err"))"
else
    fail "--time-limit: exit $rc $(cat "$work/err")"
fi

if [[ $failures -eq 0 ]]; then echo "ALL PASS"; else echo "$failures FAILED"; exit 1; fi
