#!/usr/bin/env python3
"""GDAT's time against the number of gradients, with the real `aoe` (docs/reliability.md,
"Model size": the GDAT rows of the `aoe` table).

For each size N it writes a gradient profile of N gradients (docs/gdat.md#a-gradient-profile;
the values cycle as bench/scale_bench's profile does: backward times 20, 150, 5, 400, 30 us,
sizes 4096, 262144, 1024 bytes, a 50 ms forward pass), then runs

  aoe --job_type=4 --gradient_profile=PROFILE --report off [--aoe-arg ...]

`--reps` times, each in a fresh directory (its own bank, TUNE_BANK_PATH, and work directory,
ASCEND_WORK_PATH), and measures the wall time and the child's CPU time (user + system, from
wait4, as /usr/bin/time reports them). Prints one JSON object:

  {"benchmark": "gdat_scale", "aoe": PATH, "reps": R, "aoe_args": [...],
   "load_average_before": [1, 5, 15 min], "load_average_after": [...],
   "results": [{"gradients", "profile_bytes", "wall_seconds", "cpu_seconds", "user_seconds",
                "system_seconds" (medians of the reps), "wall_all", "cpu_all" (every rep),
                "wall_per_gradient_us", "cpu_per_gradient_us"}]}

Exits 1, with aoe's stderr, if a run fails. Run niced on a shared machine and give the load
average with the figures:

  nice scripts/gdat_scale.py --aoe build/ci/tools/aoe --sizes 8000,32000,100000,1000000
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TIMES_US = [20, 150, 5, 400, 30]
SIZES = [4096, 262144, 1024]


def write_profile(path, n):
    """A profile of n gradients; returns its size in bytes."""
    with open(path, "w", encoding="ascii") as f:
        f.write('{"format_version": 1, "name": "profile%d", "forward_time_us": 50000,\n' % n)
        f.write(' "gradients": [\n')
        for i in range(n):
            f.write('  {"name": "g%d", "backward_time_us": %d, "bytes": %d}%s\n'
                    % (i, TIMES_US[i % 5], SIZES[i % 3], "," if i + 1 < n else ""))
        f.write(" ]}\n")
    return os.path.getsize(path)


def run_once(aoe, profile, args, scratch):
    """One run in a fresh directory: (wall seconds, user seconds, system seconds)."""
    bank = os.path.join(scratch, "bank")
    work = os.path.join(scratch, "work")
    shutil.rmtree(bank, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(bank)
    os.makedirs(work)
    env = dict(os.environ, TUNE_BANK_PATH=bank, ASCEND_WORK_PATH=work)
    cmd = [aoe, "--job_type=4", "--gradient_profile=" + profile, "--report", "off"] + args
    start = time.monotonic()
    child = subprocess.Popen(cmd, cwd=work, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    err = child.stderr.read().decode(errors="replace")
    child.stderr.close()
    if child.returncode != 0:
        sys.stderr.write("gdat_scale: %s exited %d:\n%s" % (" ".join(cmd), child.returncode, err))
        sys.exit(1)
    return wall, usage.ru_utime, usage.ru_stime


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--aoe", required=True, help="the aoe binary (build/ci/tools/aoe)")
    parser.add_argument("--sizes", default="8000,32000,100000,1000000",
                        help="numbers of gradients, comma-separated")
    parser.add_argument("--reps", type=int, default=3, help="runs per size (the median is kept)")
    parser.add_argument("--aoe-arg", action="append", default=[],
                        help="one more argument for aoe (repeatable), e.g. --aoe-arg=--devices=64")
    parser.add_argument("--keep", help="write the profiles into this directory and keep them")
    opts = parser.parse_args()
    try:
        sizes = [int(s) for s in opts.sizes.split(",") if s]
    except ValueError:
        parser.error("--sizes: expected comma-separated numbers of gradients, got " + opts.sizes)
    if not sizes or any(n < 1 for n in sizes):
        parser.error("--sizes: expected positive numbers of gradients, got " + opts.sizes)
    if opts.reps < 1:
        parser.error("--reps: expected at least 1, got %d" % opts.reps)
    aoe = os.path.abspath(opts.aoe)
    if not os.access(aoe, os.X_OK):
        parser.error("--aoe: %s is not an executable file" % opts.aoe)

    scratch = tempfile.mkdtemp(prefix="aoe_gdat_scale_")
    profiles = os.path.abspath(opts.keep) if opts.keep else scratch
    os.makedirs(profiles, exist_ok=True)
    load_before = list(os.getloadavg())
    results = []
    try:
        for n in sizes:
            profile = os.path.join(profiles, "profile_%d.json" % n)
            size = write_profile(profile, n)
            walls, users, systems = [], [], []
            for _ in range(opts.reps):
                wall, user, system = run_once(aoe, profile, opts.aoe_arg, scratch)
                walls.append(wall)
                users.append(user)
                systems.append(system)
            cpus = [u + s for u, s in zip(users, systems)]
            entry = {
                "gradients": n,
                "profile_bytes": size,
                "wall_seconds": statistics.median(walls),
                "cpu_seconds": statistics.median(cpus),
                "user_seconds": statistics.median(users),
                "system_seconds": statistics.median(systems),
                "wall_all": walls,
                "cpu_all": cpus,
            }
            entry["wall_per_gradient_us"] = entry["wall_seconds"] / n * 1e6
            entry["cpu_per_gradient_us"] = entry["cpu_seconds"] / n * 1e6
            results.append(entry)
            sys.stderr.write("gdat_scale: %d gradients: wall %.3f s, cpu %.3f s (median of %d)\n"
                             % (n, entry["wall_seconds"], entry["cpu_seconds"], opts.reps))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps({
        "benchmark": "gdat_scale",
        "aoe": aoe,
        "reps": opts.reps,
        "aoe_args": opts.aoe_arg,
        "load_average_before": load_before,
        "load_average_after": list(os.getloadavg()),
        "results": results,
    }))


if __name__ == "__main__":
    main()
