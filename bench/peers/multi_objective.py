"""Time and energy in the same run as the peers (bench/peers/run, docs/energy.md "The peers
on two objectives"): Kernel Tuner's multi-objective strategies, Optuna's NSGA-II and TPE and
OpenAOE's policies (aoe-bench --objective pareto) on recorded spaces with an energy per
configuration, each run's front scored by its hypervolume over the recorded front's.

The hypervolume is moocore's (the exact 2-D one), against the reference point aoe-bench uses
(1.1 x the recorded front's slowest time and largest energy: Problem::front_reference), and
normalised by the recorded front's own: 1.0 is the whole front found. The fronts are of the
unique configurations each tuner measured, in the order first measured, up to the budget,
counted as the single-objective runs count them (failures included)."""

import math
import subprocess
import sys
import time
from pathlib import Path

from recorded import RecordedSpace, ask_and_tell, fail, kernel_tuner_replay, run_aoe_bench

# Kernel Tuner 1.5.0's multi-objective strategies (pymoo's NSGA-II and NSGA-III, default
# options), and its random sampling, which takes any number of objectives.
KT_MO_STRATEGIES = ["nsga2", "nsga3", "random_sample"]
OPTUNA_MO_SAMPLERS = ["nsga2", "tpe", "random"]
# Simulator operators of ResNet-50 on the Ascend 310P3 whose recorded front has several points
# (its static power is 15 W: the fastest tiling is often not the cheapest; on the 910A and the
# 910B2, 130 W and 110 W, it mostly is), recorded by `aoe-bench record --device simulator` at
# the start of the run (docs/energy.md, "The peers on two objectives").
DEFAULT_MO_SPACES = ["sim:res2a_branch2c@Ascend310P3", "sim:res3a_branch2c@Ascend310P3",
                     "sim:res3b_branch2a@Ascend310P3"]
MO_BUDGETS = [50, 100]


class MoSpace(RecordedSpace):
    """A Kernel Tuner cache file with an energy per configuration (J): each held
    configuration's (time ms, energy J) or None (a recorded failure), and the recorded
    time-energy front with its reference point and hypervolume."""

    def __init__(self, path):
        def pair_of(key, entry):
            t, e = entry.get("time"), entry.get("energy")
            if not isinstance(t, (int, float)):
                return None
            if not isinstance(e, (int, float)):
                fail(2, f"--mo-spaces {path}: configuration {key} has a time but no 'energy' "
                        "(J): a two-objective space needs both (aoe-bench record --device "
                        "simulator writes them)")
            return float(t), float(e)
        super().__init__(path, pair_of, where="--mo-spaces ")
        valid = self.valid_values(where="--mo-spaces ")
        self.front = pareto_front(valid)
        self.reference = (self.front[-1][0] * 1.1, self.front[0][1] * 1.1)
        self.front_hypervolume = hypervolume(self.front, self.reference)
        self.worst = (max(t for t, _ in valid), max(e for _, e in valid))


def pareto_front(points):
    """The non-dominated (time, energy) points, by time."""
    front, least = [], math.inf
    for t, e in sorted(points):
        if e < least:
            front.append((t, e))
            least = e
    return front


def hypervolume(points, reference):
    """moocore's exact hypervolume of `points` (minimised) against `reference`; points outside
    the reference box add nothing."""
    import numpy as np
    import moocore
    inside = [p for p in points if p[0] < reference[0] and p[1] < reference[1]]
    if not inside:
        return 0.0
    return float(moocore.hypervolume(np.array(inside, dtype=float), ref=list(reference)))


def normalised_hypervolume(space, values, budget):
    """The front of the first `budget` values (None: failed) over the recorded front's."""
    found = [v for v in values[:budget] if v is not None]
    return hypervolume(pareto_front(found), space.reference) / space.front_hypervolume


def record_space(aoe_bench, spec, workdir):
    """`sim:<operator>@<SoC>` recorded with both objectives into `workdir` (aoe-bench record
    --device simulator), or a cache file as given: its path."""
    if not spec.startswith("sim:"):
        if not Path(spec).is_file():
            fail(2, f"--mo-spaces {spec}: no such cache file")
        return Path(spec)
    kernel = spec[4:]
    out = Path(workdir) / (kernel.replace("/", "_").replace("@", "_") + ".json")
    command = [str(aoe_bench), "record", "--device", "simulator", "--kernel", kernel,
               "--output", str(out)]
    print("bench/peers/run: " + " ".join(command), file=sys.stderr)
    # Its progress line (one per batch) is left out; its messages are shown when it fails.
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr.replace("\r", "\n")[-4000:])
        fail(4, f"--mo-spaces {spec}: aoe-bench record exited with {done.returncode}")
    return out


# ---- the peers ---------------------------------------------------------------------------

def run_kernel_tuner(space, strategy, seed, budget, workdir):
    """Kernel Tuner's simulation mode on the cache (recorded.kernel_tuner_replay), objectives
    time and energy, both minimised."""
    return kernel_tuner_replay(space, strategy, seed, budget, workdir,
                               objective=["time", "energy"],
                               objective_higher_is_better=[False, False])


def optuna_sampler(name, seed):
    import optuna
    if name == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed)
    if name == "tpe":
        # Multivariate: with its default independent sampling, TPE on two objectives took
        # 96 s for 50 evaluations of the 2,376-configuration --quick space and was stopped
        # unfinished after more than 5 minutes on 100 of res2a_branch2c's 124,128 (each of
        # the 12 parameters sampled on its own
        # misses the joint restrictions: about 9 proposals per held configuration, and each
        # proposal costs more than the last); multivariate, 1-8 s (docs/energy.md).
        return optuna.samplers.TPESampler(seed=seed, multivariate=True)
    return optuna.samplers.RandomSampler(seed=seed)


def run_optuna(space, sampler_name, seed, budget):
    """Ask and tell on two objectives (recorded.ask_and_tell, as the single-objective runs),
    each parameter categorical: a configuration without a time and energy is told to NSGA-II
    and TPE as infeasible, with the space's worst time and energy, and to random search that
    it failed."""
    import optuna
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(directions=["minimize", "minimize"],
                                sampler=optuna_sampler(sampler_name, seed))

    def suggest(trial):
        return {k: trial.suggest_categorical(k, options)
                for k, options in space.tune_params.items()}

    return ask_and_tell(space, study, budget, suggest, sampler_name in ("nsga2", "tpe"),
                        list, list(space.worst))


def peer_job(job):
    """One repetition of one peer on one two-objective space (in a worker process)."""
    kind, name, space_path, seed, budget, workdir = job
    space = SPACES_BY_PATH.get(space_path) or MoSpace(space_path)
    SPACES_BY_PATH[space_path] = space
    run = {"space": space.name, "tuner": f"{kind}:{name}", "seed": seed}
    try:
        if kind == "kernel_tuner":
            values, costs, seconds = run_kernel_tuner(space, name, seed, budget, workdir)
        else:
            values, costs, seconds = run_optuna(space, name, seed, budget)
    except Exception as e:  # noqa: BLE001  (a peer's own failure: reported, not fatal)
        run["error"] = f"{type(e).__name__}: {e}"
        return run
    run.update(values=[None if v is None else list(v) for v in values], costs=costs,
               seconds=seconds)
    return run


SPACES_BY_PATH = {}


def run_aoe(aoe_bench, spaces, policies, repeats, budget, seed, threads, workdir):
    """aoe-bench --objective pareto --traces on the spaces: the runs (each evaluation's time
    and energy, looked up in the cache, so that every value is one the space holds) and
    aoe-bench's own hypervolumes {(space, tuner, k): mean}, which the harness checks its own
    scoring against."""
    if policies is not None and not policies:
        return [], {}
    document = run_aoe_bench(aoe_bench, spaces, policies, repeats, budget, seed, threads,
                             Path(workdir) / "aoe_pareto.json", extra=("--objective", "pareto"))
    runs, own = [], {}
    by_name = {s.name: s for s in spaces}
    for entry in document["inputs"]:
        space = by_name.get(entry["name"])
        if space is None:
            continue
        by_energy = {}  # the joules pass through aoe-bench unchanged; the times become seconds
        for v in space.values.values():
            if v is not None:
                by_energy.setdefault(v[1], []).append(v)
        for strategy in entry["strategies"]:
            tuner = f"aoe:{strategy['name']}"
            for k, h in strategy.get("hypervolume", {}).items():
                own[(space.name, tuner, int(k))] = h["mean"]
            for r, trace in enumerate(strategy["traces"]):
                values = [None if t is None else
                          recorded_pair(space, by_energy, t, e)
                          for t, e in zip(trace["values"][:budget], trace["energies"][:budget])]
                runs.append({"space": space.name, "tuner": tuner, "seed": r, "values": values,
                             "costs": trace["costs"][:budget], "seconds": trace["seconds"]})
    return runs, own


def recorded_pair(space, by_energy, seconds, joules):
    """The cache's (ms, J) that aoe-bench's (s, J) is."""
    for t, e in by_energy.get(joules, []):
        if abs(t * 1e-3 - seconds) <= 1e-9 * t * 1e-3:
            return [t, e]
    fail(4, f"{space.path}: aoe-bench reported {seconds} s and {joules} J, which the cache "
            "does not hold")


# ---- scoring -----------------------------------------------------------------------------

def score(spaces, runs, tuners, budgets, rng, bootstrap_mean):
    """{"space", "tuner", "budget", "hypervolume", "ci_low", "ci_high"} per space, tuner and
    budget, and over the spaces ("mean": the mean of each space's mean, with a stratified
    bootstrap interval)."""
    by = {}
    for r in runs:
        by.setdefault((r["space"], r["tuner"]), []).append(r)
    out = []
    for tuner in tuners:
        for b in budgets:
            groups = []
            for s in spaces:
                hv = [normalised_hypervolume(s, [None if v is None else tuple(v)
                                                 for v in r["values"]], b)
                      for r in by.get((s.name, tuner), [])]
                if not hv:
                    continue
                groups.append(hv)
                mean, low, high = bootstrap_mean([hv], 2000, rng)
                out.append({"space": s.name, "tuner": tuner, "budget": b, "hypervolume": mean,
                            "ci_low": low, "ci_high": high})
            if len(groups) == len(spaces):
                mean, low, high = bootstrap_mean(groups, 2000, rng)
                out.append({"space": "mean", "tuner": tuner, "budget": b, "hypervolume": mean,
                            "ci_low": low, "ci_high": high})
    return out


def check(results, spaces, tuners, budgets, runs, budget, own):
    """The harness's checks of the two-objective part: every tuner scored on every space and
    budget, hypervolumes in [0, 1] inside their intervals and never lower at a larger budget,
    no run longer than the budget, and for our policies the hypervolume aoe-bench computed
    itself equal to the one scored here from its traces."""
    problems = []
    index = {(r["space"], r["tuner"], r["budget"]): r for r in results}
    for tuner in tuners:
        for space in [s.name for s in spaces] + ["mean"]:
            last = 0.0
            for b in budgets:
                r = index.get((space, tuner, b))
                if r is None:
                    problems.append(f"multi-objective: {tuner} has no result on {space} at {b}")
                    continue
                h, lo, hi = r["hypervolume"], r["ci_low"], r["ci_high"]
                if not (0 <= lo <= h + 1e-12 and h <= hi + 1e-12 and hi <= 1 + 1e-9):
                    problems.append(f"multi-objective: {tuner} on {space} at {b}: {h} outside "
                                    f"[{lo}, {hi}] or [0, 1]")
                if h < last - 1e-12:
                    problems.append(f"multi-objective: {tuner} on {space}: lower at {b} ({h}) "
                                    f"than before ({last})")
                last = h
                mine = own.get((space, tuner, b))
                if mine is not None and abs(mine - h) > 1e-9:
                    problems.append(f"multi-objective: {tuner} on {space} at {b}: aoe-bench's "
                                    f"hypervolume {mine}, scored here {h}")
    for run in runs:
        if len(run["values"]) > budget or len(run["costs"]) != len(run["values"]):
            problems.append(f"multi-objective: {run['tuner']} on {run['space']} (seed "
                            f"{run['seed']}): {len(run['values'])} values, budget {budget}")
    return problems


def print_table(results, tuners, budgets, spaces):
    mean = {(r["tuner"], r["budget"]): r for r in results if r["space"] == "mean"}
    order = sorted(tuners, key=lambda t: -mean[(t, budgets[-1])]["hypervolume"])
    print(f"\ntime and energy on {len(spaces)} recorded spaces ({', '.join(s.name for s in spaces)}): "
          "hypervolume of the fronts found over the recorded front's")
    print(f"{'tuner':34s}" + "".join(f"{'hv@' + str(b):>24s}" for b in budgets))
    for t in order:
        print(f"{t:34s}" + "".join(
            f"{m['hypervolume']:8.3f} [{m['ci_low']:.3f},{m['ci_high']:.3f}]"
            for m in (mean[(t, b)] for b in budgets)))


# ---- the part of bench/peers/run ---------------------------------------------------------

def load_spaces(spec, workdir):
    """The --mo-spaces, recorded where they are sim: and read (exit 2 on one that is not a
    two-objective space): before the single-objective part runs, so that a bad one is found
    at once."""
    paths = [record_space(spec["aoe_bench"], s, workdir) for s in spec["spaces"]]
    return [MoSpace(p) for p in paths]


def run_part(spec, spaces, workdir, started, run_pool, bootstrap_mean, rng, saved=None):
    """The two-objective part of a run of bench/peers/run on `spaces` (load_spaces). `spec`:
    aoe_bench, spaces (the --mo-spaces), budgets, repeats, seed, jobs, kernel_tuner, optuna,
    aoe (policies; None: aoe-bench's default set). `saved`: the runs and the skipped tuners
    of --from-runs (scored again, not run). Returns (the JSON's "multi_objective", its "multi_objective_spaces", the
    settings' "multi_objective", the runs to save, the harness's problems)."""
    budget = max(spec["budgets"])
    skipped, failed, own = {}, {}, {}
    part_started = time.perf_counter()
    if saved is not None:
        runs, skipped = saved
    else:
        runs, own = run_aoe(spec["aoe_bench"], spaces, spec["aoe"], spec["repeats"], budget,
                            spec["seed"], spec["jobs"], workdir)
        jobs = [(kind, name, str(s.path), spec["seed"] + r, budget, workdir)
                for s in spaces
                for kind, group in (("kernel_tuner", spec["kernel_tuner"]),
                                    ("optuna", spec["optuna"])) for name in group
                for r in range(spec["repeats"])]
        print(f"bench/peers/run: {len(jobs)} two-objective peer repetitions on {len(spaces)} "
              f"spaces", file=sys.stderr)
        runs += run_pool(jobs, peer_job, spec["jobs"], started, failed)
        runs = [r for r in runs if r["tuner"] not in failed]
        skipped = {t: f"failed ({why})" for t, why in failed.items()}
    tuners = list(dict.fromkeys(r["tuner"] for r in runs))
    results = score(spaces, runs, tuners, spec["budgets"], rng, bootstrap_mean)
    problems = check(results, spaces, tuners, spec["budgets"], runs, budget, own)
    described = [{"name": s.name, "file": spec_name, "configurations": len(s.values),
                  "valid_configurations": sum(v is not None for v in s.values.values()),
                  "front": [list(p) for p in s.front], "reference": list(s.reference)}
                 for s, spec_name in zip(spaces, spec["spaces"])]
    settings = {"budgets": spec["budgets"], "repeats": spec["repeats"], "skipped": skipped,
                "seconds": time.perf_counter() - part_started,
                "hypervolume": "moocore's exact 2-D hypervolume of each run's front over the "
                               "recorded front's, against 1.1 x the recorded front's slowest "
                               "time and largest energy (aoe-bench's reference point)"}
    if results:
        print_table(results, tuners, spec["budgets"], spaces)
    return results, described, settings, runs, problems
