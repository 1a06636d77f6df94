#!/usr/bin/env python3
"""Scaling of distributed OPAT over MPI ranks (docs/distributed.md, "Measured scaling").

Runs the same OPAT job,

  mpirun --oversubscribe -np N aoe --model=examples/models/<MODEL>.json --job_type=2
         --measure_latency=S --budget=B --seed=SEED --report=off

at N = 1, 2, 4 and 8 ranks (--ranks), each on a fresh bank and work directory, with
TUNING_PARALLEL_NUM=1 (each rank is one device measuring one candidate at a time). Every
simulated measurement sleeps S seconds, as a device's compile and run would take, so the ranks
mostly wait and overlap even on a machine with fewer cores than ranks.

Checks that every run's outputs are those of the 1-rank run: the bank files (entries, apart
from the provenance timestamp), the result file (apart from its report key, which holds the
time and pid, and tuning_time(s)) and the tuned model. Prints one JSON object:

  {"results": [{"ranks", "wall_seconds", "speedup", "efficiency"}, ...],
   "model", "measure_latency", "budget", "seed", "operators", "identical_outputs", ...}

wall_seconds is the whole `mpirun` command (MPI start-up included); speedup = wall(1) /
wall(N); efficiency = speedup / N. Each run of 2 ranks or more is traced (AOE_MPI_TRACE,
include/aoe/mpi/detail/trace.hpp) and "time_breakdown" says where its wall time went: start-up
(mpirun started -> the last rank has started MPI), the job (-> rank 0's job ended), the exit
(-> mpirun returned), and per rank the seconds it ran steps and the seconds it had none. Exits 1 when a run failed or an output differed, 2 on bad
usage (no mpirun, no aoe).
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))


def strict_json(text):
    def reject(name):
        raise ValueError("not JSON: " + name)

    return json.loads(text, parse_constant=reject)


def drop_keys(value, names):
    """`value` without the object members named in `names`, at any depth."""
    if isinstance(value, dict):
        return {k: drop_keys(v, names) for k, v in value.items() if k not in names}
    if isinstance(value, list):
        return [drop_keys(v, names) for v in value]
    return value


def outputs(bank, work):
    """What a run wrote, normalised: bank files by relative path, the result file, the model."""
    out = {"bank": {}, "result": None, "tuned_model": None}
    for dirpath, _, files in os.walk(bank):
        for name in sorted(files):
            if name.endswith(".lock"):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as f:
                out["bank"][os.path.relpath(path, bank)] = drop_keys(strict_json(f.read()),
                                                                     {"timestamp"})
    results = glob.glob(os.path.join(work, "aoe_result_opat_*.json"))
    if len(results) != 1:
        raise RuntimeError("%s: expected one result file, found %d" % (work, len(results)))
    with open(results[0], encoding="utf-8") as f:
        report = strict_json(f.read())
    # {"report_<time>_<pid>": [...]}: the key names the run, the content is the output.
    out["result"] = drop_keys(list(report.values()), {"tuning_time(s)"})
    models = glob.glob(os.path.join(work, "aoe_workspace", "*", "tunespace", "result",
                                    "*_tune.json"))
    if len(models) != 1:
        raise RuntimeError("%s: expected one tuned model, found %d" % (work, len(models)))
    with open(models[0], encoding="utf-8") as f:
        out["tuned_model"] = strict_json(f.read())
    return out


def trace_breakdown(trace, launched, returned):
    """Where a traced run's wall time went (see the module's text), from <trace>/rank<R>.trace."""
    events = {}
    for path in glob.glob(os.path.join(trace, "rank*.trace")):
        rank = int(os.path.basename(path)[len("rank"):-len(".trace")])
        with open(path, encoding="utf-8") as f:
            events[rank] = [(float(t), what, int(a), int(b))
                            for t, what, a, b in (line.split() for line in f)]
    if 0 not in events:
        return None
    started = max(e[0] for rank in events.values() for e in rank if e[1] == "started")
    first = min(e[0] for rank in events.values() for e in rank if e[1] == "started")
    ends = [e[0] for e in events[0] if e[1] == "job_end"]
    if not ends:
        return None
    end = ends[-1]
    busy = {}
    for rank, evs in events.items():
        began = {}
        total = 0.0
        for t, what, a, b in evs:
            # rank 0 runs its share on a thread: "send 0 <ticket>" .. "done 0 <ticket>"
            if (what == "task" and rank != 0) or (what == "send" and a == 0 and rank == 0):
                began[b] = t
            elif what == "done" and b in began:
                total += t - began.pop(b)
        busy[rank] = total
    job = end - first
    return {
        "startup_seconds": round(started - launched, 3),
        "job_seconds": round(job, 3),
        "exit_seconds": round(returned - end, 3),
        "busy_seconds_per_rank": [round(busy[r], 2) for r in sorted(busy)],
        "idle_seconds_per_rank": [round(job - busy[r], 2) for r in sorted(busy)],
    }


def count_operators(result):
    """Operators the job accounted for (repo_summary.total_num), or None."""
    for block in result[0] if result else []:
        opat = block.get("OPAT") if isinstance(block, dict) else None
        if opat and "repo_summary" in opat:
            return opat["repo_summary"].get("total_num")
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--aoe", default=os.path.join(ROOT, "build", "ci", "tools", "aoe"))
    p.add_argument("--mpirun", default=shutil.which("mpirun") or "mpirun")
    p.add_argument("--model", default="resnet50", help="a model of examples/models (resnet50)")
    p.add_argument("--ranks", default="1,2,4,8")
    p.add_argument("--measure-latency", type=float, default=0.4)
    p.add_argument("--budget", type=int, default=8)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--keep", action="store_true", help="keep the work directories")
    args = p.parse_args()

    model = os.path.join(ROOT, "examples", "models", args.model + ".json")
    for what, path in (("--aoe", args.aoe), ("--model", model)):
        if not os.path.isfile(path):
            print("distributed_bench: %s: %s does not exist" % (what, path), file=sys.stderr)
            return 2
    if shutil.which(args.mpirun) is None:
        print("distributed_bench: --mpirun: %s not found (Debian: apt-get install openmpi-bin)"
              % args.mpirun, file=sys.stderr)
        return 2
    try:
        ranks = [int(r) for r in args.ranks.split(",")]
    except ValueError:
        print("distributed_bench: --ranks=%s: expected numbers, e.g. 1,2,4,8" % args.ranks,
              file=sys.stderr)
        return 2
    if not ranks or ranks[0] != 1 or any(r < 1 for r in ranks):
        print("distributed_bench: --ranks=%s: expected 1 first (the reference), then more"
              % args.ranks, file=sys.stderr)
        return 2

    env = dict(os.environ)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "TUNING_PARALLEL_NUM": "1"})
    for name in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE",
                 "SLURM_STEP_NUM_TASKS", "SLURM_PROCID"):
        env.pop(name, None)
    top = tempfile.mkdtemp(prefix="aoe_distributed_bench_")
    results = []
    reference = None
    identical = True
    differences = []
    failed = []
    operators = None
    load = []  # the 1-minute load average before each run (the machine is shared)
    breakdown = []
    try:
        for n in ranks:
            bank = os.path.join(top, "bank_%d" % n)
            work = os.path.join(top, "work_%d" % n)
            trace = os.path.join(top, "trace_%d" % n)
            os.makedirs(bank)
            os.makedirs(work)
            os.makedirs(trace)
            run_env = dict(env, TUNE_BANK_PATH=bank, ASCEND_WORK_PATH=work, AOE_MPI_TRACE=trace)
            command = [args.mpirun, "--oversubscribe", "-np", str(n), args.aoe,
                       "--model=" + model, "--job_type=2",
                       "--measure_latency=%g" % args.measure_latency,
                       "--budget=%d" % args.budget, "--seed=%d" % args.seed, "--report=off",
                       "--progress_bar=off", "--log=warning"]
            load.append({"ranks": n, "load_average": round(os.getloadavg()[0], 2)})
            launched = time.time()  # the ranks' trace is on this clock
            started = time.monotonic()
            proc = subprocess.run(command, env=run_env, cwd=top, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
            wall = time.monotonic() - started
            returned = time.time()
            if proc.returncode != 0:
                failed.append({"ranks": n, "exit": proc.returncode,
                               "stderr": proc.stderr.strip()[-2000:]})
                continue
            got = outputs(bank, work)
            if reference is None:
                reference = got
                operators = count_operators(got["result"])
            else:
                for part in ("bank", "result", "tuned_model"):
                    if got[part] != reference[part]:
                        identical = False
                        differences.append({"ranks": n, "output": part})
            results.append({"ranks": n, "wall_seconds": round(wall, 3)})
            if n > 1:
                breakdown.append(dict({"ranks": n}, **(trace_breakdown(trace, launched, returned)
                                                       or {"trace": "missing"})))
        if results and results[0]["ranks"] == 1:
            base = results[0]["wall_seconds"]
            for r in results:
                r["speedup"] = round(base / r["wall_seconds"], 3)
                r["efficiency"] = round(base / r["wall_seconds"] / r["ranks"], 3)
    finally:
        if not args.keep:
            shutil.rmtree(top, ignore_errors=True)
    report = {
        "results": results,
        "model": os.path.relpath(model, ROOT),
        "measure_latency": args.measure_latency,
        "budget": args.budget,
        "load_average_before_runs": load,
        "time_breakdown": breakdown,
        "seed": args.seed,
        "tuning_parallel_num": 1,
        "operators": operators,
        "identical_outputs": identical and not failed,
        "differences": differences,
        "failed_runs": failed,
        "cpus": os.cpu_count(),
    }
    if args.keep:
        report["work_directory"] = top
    print(json.dumps(report, indent=2))
    return 0 if identical and not failed and len(results) == len(ranks) else 1


if __name__ == "__main__":
    sys.exit(main())
