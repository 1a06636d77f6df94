"""Recorded spaces as bench/peers/run replays them, the same for every tuner of its single- and
two-objective parts (multi_objective.py): a Kernel Tuner cache file read, what an evaluation
of it charges, a run's unique evaluations, Kernel Tuner's simulation mode and Optuna's ask and
tell on it, and aoe-bench run on it."""

import gzip
import json
import math
import os
import random
import subprocess
import sys
import time
import warnings
from pathlib import Path


def fail(code, message):
    print(f"bench/peers/run: {message}", file=sys.stderr)
    sys.exit(code)


def charged_seconds(entry):
    """The device seconds an evaluation of a recorded configuration costs, as aoe-bench's
    replay charges it (docs/research.md, "Time charged"): compile + verification + benchmark
    time, the benchmark time being the recorded benchmark_time, else the sum of the recorded
    runs (when there are any: an empty `times` is no runs recorded, not runs that took no
    time), else time x 7 (Kernel Tuner's default iterations)."""
    def number(x):
        return float(x) if isinstance(x, (int, float)) else 0.0
    if isinstance(entry.get("benchmark_time"), (int, float)):
        bench = entry["benchmark_time"]
    elif isinstance(entry.get("times"), list) and entry["times"]:
        bench = sum(number(t) for t in entry["times"])
    else:
        bench = number(entry.get("time")) * 7
    return (number(entry.get("compile_time")) + number(entry.get("verification_time")) +
            bench) / 1000.0


class RecordedSpace:
    """A Kernel Tuner cache file: its parameters, each held configuration's value
    (`value_of(key, entry)`; None: a recorded failure) and charged seconds; the
    configurations it does not hold broke the kernel's restrictions. `where` prefixes its
    error messages (the flag that named the file)."""

    def __init__(self, path, value_of, where=""):
        self.path = Path(path)
        self.name = self.path.name.removesuffix(".gz").removesuffix(".json")
        opener = gzip.open if self.path.suffix == ".gz" else open
        try:
            with opener(self.path, "rt", encoding="utf-8") as f:
                self.data = json.load(f)
            self.keys = list(self.data["tune_params_keys"])
            self.tune_params = {k: list(self.data["tune_params"][k]) for k in self.keys}
            cache = self.data["cache"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            fail(2, f"{where}{path}: not a Kernel Tuner cache file ({type(e).__name__}: {e})")
        self.values, self.costs = {}, {}
        for key, entry in cache.items():
            self.values[key] = value_of(key, entry)
            self.costs[key] = charged_seconds(entry)
        self.held_fraction = len(self.values) / math.prod(len(v) for v in self.tune_params.values())

    def valid_values(self, where=""):
        """The values of the configurations measured correctly (exit 2 when there are none)."""
        valid = [v for v in self.values.values() if v is not None]
        if not valid:
            fail(2, f"{where}{self.path}: no configuration was measured correctly")
        return valid

    def key(self, config):
        return ",".join(str(config[k]) for k in self.keys)

    def plain_copy(self, directory):
        """The cache as plain JSON, for Kernel Tuner's simulation mode, which reads no gzip
        (and opens the file read only: an uncompressed one is given as it is)."""
        if self.path.suffix != ".gz":
            return self.path
        out = Path(directory) / f"{self.name}.json"
        if not out.exists():  # written whole, then renamed: another worker may read it at once
            tmp = Path(directory) / f"{self.name}.{os.getpid()}.tmp"
            tmp.write_text(json.dumps(self.data))
            tmp.replace(out)
        return out


def unique_evaluations(space, configs):
    """The values (None: failed) and charged seconds of the unique configurations, in the
    order first evaluated."""
    seen, values, costs = set(), [], []
    for config in configs:
        key = space.key(config)
        if key in seen:
            continue
        seen.add(key)
        values.append(space.values.get(key))
        costs.append(space.costs.get(key, 0.0))
    return values, costs


def kernel_tuner_replay(space, strategy, seed, budget, workdir, **options):
    """Kernel Tuner's `strategy` in its simulation mode on the cache, the restrictions "the
    cache holds this configuration", Python's and NumPy's generators seeded with `seed`, and
    tune_kernel's own `seed` too (only its pymoo strategies, nsga2 and nsga3, read it: without
    it their runs were not repeatable); `options`: more tune_kernel arguments (the
    objectives). The unique evaluations, cut at the budget, and the wall seconds."""
    from kernel_tuner import tune_kernel
    random.seed(seed)
    import numpy as np
    np.random.seed(seed % 2**32)
    held = set(space.values)

    def recorded(params):  # the restrictions: a def, not a lambda (Kernel Tuner parses those)
        return space.key(params) in held

    cache = space.plain_copy(workdir)
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, _ = tune_kernel(
            space.data.get("kernel_name", space.name), "", space.data.get("problem_size", 1), [],
            dict(space.tune_params), restrictions=recorded,
            simulation_mode=True, cache=str(cache), strategy=strategy,
            strategy_options={"max_fevals": budget}, seed=seed, quiet=True, verbose=False,
            **options)
    seconds = time.perf_counter() - started
    values, costs = unique_evaluations(space, results)
    return values[:budget], costs[:budget], seconds


def ask_and_tell(space, study, budget, suggest, constrained, told, worst):
    """Optuna's `study` by ask and tell on the space: `suggest(trial)` the configuration of a
    trial, `told(value)` what a held, measured one is told. A configuration the cache does not
    hold broke the kernel's restrictions and one recorded as failed did not run: a
    `constrained` sampler is told such a trial as infeasible (Trial.set_constraint, with the
    value `worst`), so that it learns where the restrictions lie, as a user with a constrained
    space would set it up; the others are told it failed. A configuration the cache does not
    hold is not counted as an evaluation (Kernel Tuner never proposes one); one proposed again
    gets its value again and is not counted again. A sampler still short of the budget after
    4 x budget / (the share of the parameters' product that the cache holds) proposals, four
    times what random sampling needs on average, is stopped there: it keeps proposing what it
    has seen (CMA-ES does once it has converged), and each proposal costs more than the last.
    The unique evaluations and the wall seconds."""
    import optuna
    seen, values, costs = set(), [], []
    proposals, limit = 0, math.ceil(4 * budget / space.held_fraction)
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while len(values) < budget and proposals < limit and len(seen) < len(space.values):
            proposals += 1
            trial = study.ask()
            key = space.key(suggest(trial))
            value = space.values.get(key)
            if key in space.values and key not in seen:
                seen.add(key)
                values.append(value)
                costs.append(space.costs[key])
            if value is not None:
                if constrained:
                    trial.set_constraint("recorded", -1.0)
                study.tell(trial, told(value))
            elif constrained:
                trial.set_constraint("recorded", 1.0)
                study.tell(trial, worst)
            else:
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
    return values, costs, time.perf_counter() - started


def run_aoe_bench(program, spaces, policies, repeats, budget, seed, threads, out, extra=()):
    """`program` (aoe-bench, or a program of a user's that takes its flags) on the spaces with
    `--traces`, `extra` flags after the inputs and policies: its JSON document. Policies
    None: the program's own default set (no --strategy). Exit 4 when it fails."""
    strategy = ["--strategy", ",".join(policies)] if policies else []
    command = [str(program), "--input", *[str(s.path) for s in spaces], *strategy, *extra,
               "--budget", str(budget), "--repeats", str(repeats),
               "--seed", str(seed), "--max-score-evaluations", str(budget), "--traces",
               "--json", str(out)]
    if threads:
        command += ["--threads", str(threads)]
    print("bench/peers/run: " + " ".join(command), file=sys.stderr)
    done = subprocess.run(command, stdout=subprocess.DEVNULL)
    if done.returncode != 0:
        fail(4, f"{' '.join([Path(program).name, *extra])} exited with {done.returncode}")
    return json.loads(Path(out).read_text())
