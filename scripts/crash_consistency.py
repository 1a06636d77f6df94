#!/usr/bin/env python3
"""Crash consistency of aoe's files (docs/reliability.md, "Crash consistency").

Runs the three jobs (OPAT, SGAT, GDAT) on ONE shared bank and kills `aoe` with SIGKILL at a
random moment, N times; then runs writers concurrently on the same bank. After every trial it
checks that

  * every bank file and every result file and tuned model is valid JSON (JSON lines for the graph
    bank; NaN and Infinity are not JSON and count as invalid),
  * no bank entry committed before the trial is gone (entry keys of all three banks),
  * every few trials, and at the end, a run of each job that is not killed loads the banks with
    aoe's own (strict) loaders and succeeds,
  * after those runs no temporary file of the atomic writer is left anywhere.

Prints one JSON object: trials, kills, lost_entries, invalid_files, failed_verifications,
kills_leaving_temp_files, temp_files_seen_after_kill (distinct files, before the next run removes
them), largest_temp_file_bytes, leftover_temp_files (after the next runs: must be 0), concurrent
writers/rounds/failures, seconds. Exits 1 if any check failed, so that ctest can run a short
version:

  crash_consistency.py --aoe build/ci/tools/aoe --trials 12 --concurrent-rounds 2
"""

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "examples", "models")
TEMP_MARKER = ".aoe-tmp."


def strict_json(text):
    def reject(name):
        raise ValueError("not JSON: " + name)

    return json.loads(text, parse_constant=reject)


def bank_keys(root, problems):
    """Entry keys of the three banks under `root` (TUNE_BANK_PATH holds all three)."""
    keys = set()
    for dirpath, _, files in os.walk(root):
        for name in files:
            if TEMP_MARKER in name or name.endswith(".lock"):
                continue
            path = os.path.join(dirpath, name)
            try:
                with open(path, "rb") as f:
                    text = f.read().decode("utf-8")
                if name.endswith("_l2cache.json"):  # SGAT graph bank: JSON lines
                    for n, line in enumerate(text.splitlines()):
                        if not line.strip():
                            continue
                        o = strict_json(line)
                        if n == 0:
                            continue
                        keys.add(("graph", o["repo_key"], o["signature"]))
                elif name.endswith("_gradient_fusion.json"):
                    for e in strict_json(text):
                        ours = e.get("openaoe", {})
                        keys.add(("gradient", e["modelhash"], ours.get("cluster", "")))
                elif name.endswith(".json"):
                    o = strict_json(text)
                    for k in o["entries"]:
                        keys.add(("op", name, k))
            except Exception as e:  # noqa: BLE001 - any failure to load is the finding
                problems.append("%s: %s" % (path, e))
    return keys


def check_outputs(work, problems):
    for dirpath, _, files in os.walk(work):
        for name in files:
            if TEMP_MARKER in name or not name.endswith(".json"):
                continue
            path = os.path.join(dirpath, name)
            try:
                with open(path, "rb") as f:
                    strict_json(f.read().decode("utf-8"))
            except Exception as e:  # noqa: BLE001
                problems.append("%s: %s" % (path, e))


def temp_files(*roots):
    found = []
    for root in roots:
        for dirpath, _, files in os.walk(root):
            found += [os.path.join(dirpath, f) for f in files if TEMP_MARKER in f]
    return found


def command(aoe, job, model, rng):
    args = [aoe, "--model=" + model, "--job_type=%d" % job, "--log=null",
            "--budget=%d" % rng.randint(8, 40), "--seed=%d" % rng.randint(0, 10**6)]
    return args


def environment(bank, work, rng):
    env = dict(os.environ)
    env.update({"TUNE_BANK_PATH": bank, "ASCEND_WORK_PATH": work,
                "REPEAT_TUNE": rng.choice(["True", "True", "False"]),
                "TUNING_PARALLEL_NUM": str(rng.choice([1, 2, 4]))})
    env.pop("AOE_MODE", None)
    return env


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--aoe", required=True, help="the aoe executable")
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--concurrent-rounds", type=int, default=20)
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--verify-every", type=int, default=10)
    ap.add_argument("--max-delay", type=float, default=5.0,
                    help="at most this many seconds between the start and the kill")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    a = ap.parse_args()

    rng = random.Random(a.seed)
    models = sorted(os.path.join(MODELS, m) for m in os.listdir(MODELS) if m.endswith(".json"))
    scratch = tempfile.mkdtemp(prefix="aoe_crash_")
    bank = os.path.join(scratch, "bank")
    work = os.path.join(scratch, "work")
    os.makedirs(bank)
    os.makedirs(work)
    try:
        return run(a, rng, models, scratch, bank, work)
    finally:
        if not a.keep:
            shutil.rmtree(scratch, ignore_errors=True)


def run(a, rng, models, scratch, bank, work):
    start = time.monotonic()
    out = {"trials": 0, "kills": 0, "finished_before_kill": 0, "lost_entries": 0,
           "invalid_files": 0, "failed_verifications": 0, "kills_leaving_temp_files": 0,
           "temp_files_seen_after_kill": 0, "largest_temp_file_bytes": 0,
           "leftover_temp_files": 0, "concurrent_rounds": 0, "writers": a.writers,
           "concurrent_failures": 0, "bank_entries": 0, "problems": []}
    committed = set()
    seen_temp = set()  # temporary files found after a kill (each counted once)
    # How long each job takes (seconds, last finished run): the kill falls at a uniform moment
    # of a run, so that every phase (loading, tuning, writing the bank and results) is hit.
    duration = {2: 1.0, 1: 1.0, 4: 0.3}

    def timed_run(job, after_what):
        t0 = time.monotonic()
        r = subprocess.run(command(a.aoe, job, rng.choice(models), rng),
                           env=environment(bank, work, rng), stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, check=False)
        duration[job] = time.monotonic() - t0
        if r.returncode != 0:
            out["failed_verifications"] += 1
            out["problems"].append("%s: job %d exited %d: %s" %
                                   (after_what, job, r.returncode, r.stderr.strip()[-300:]))

    def check(after_what):
        problems = []
        keys = bank_keys(bank, problems)
        check_outputs(work, problems)
        lost = committed - keys
        out["lost_entries"] += len(lost)
        out["invalid_files"] += len(problems)
        for p in problems[:5]:
            out["problems"].append(after_what + ": " + p)
        for k in sorted(lost)[:5]:
            out["problems"].append(after_what + ": lost " + repr(k))
        committed.update(keys)

    def verify(after_what):
        # One run of each job, not killed: aoe's own loaders read every bank; then no temporary
        # file may be left (each run removes those of dead writers in the directories it writes).
        for job in (2, 1, 4):
            timed_run(job, after_what)
        check(after_what + " (verification)")
        left = temp_files(bank, work)
        out["leftover_temp_files"] = len(left)
        for p in left[:5]:
            out["problems"].append(after_what + ": temporary file left: " + p)

    for job in (2, 1, 4):  # how long each job takes here, before the first kill
        timed_run(job, "calibration")
    check("calibration")
    for trial in range(a.trials):
        job = rng.choice((2, 1, 4))
        p = subprocess.Popen(command(a.aoe, job, rng.choice(models), rng),
                             env=environment(bank, work, rng), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        t0 = time.monotonic()
        time.sleep(rng.uniform(0, min(a.max_delay, 1.1 * duration[job])))
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            out["kills"] += 1
            p.wait()
        else:
            out["finished_before_kill"] += 1
            p.wait()
            duration[job] = time.monotonic() - t0
        out["trials"] += 1
        fresh = [t for t in temp_files(bank, work) if t not in seen_temp]
        if fresh:
            out["kills_leaving_temp_files"] += 1
        for t in fresh:
            seen_temp.add(t)
            try:
                out["largest_temp_file_bytes"] = max(out["largest_temp_file_bytes"],
                                                     os.path.getsize(t))
            except OSError:
                pass
        out["temp_files_seen_after_kill"] = len(seen_temp)
        check("trial %d" % trial)
        if (trial + 1) % a.verify_every == 0:
            verify("trial %d" % trial)

    # Concurrent writers: each round starts `writers` jobs at once on the bank, all finish.
    for rnd in range(a.concurrent_rounds):
        procs = []
        for _ in range(a.writers):
            job = rng.choice((2, 1, 4))
            procs.append((job, subprocess.Popen(
                command(a.aoe, job, rng.choice(models), rng), env=environment(bank, work, rng),
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)))
        for job, proc in procs:
            _, err = proc.communicate()
            if proc.returncode != 0:
                out["concurrent_failures"] += 1
                out["problems"].append("round %d: job %d exited %d: %s" %
                                       (rnd, job, proc.returncode, err.strip()[-300:]))
        out["concurrent_rounds"] += 1
        check("concurrent round %d" % rnd)

    verify("end")
    out["bank_entries"] = len(committed)
    out["seconds"] = round(time.monotonic() - start, 1)
    out["problems"] = out["problems"][:20]
    if a.keep:
        out["scratch"] = scratch
    print(json.dumps(out, indent=2))
    failed = (out["lost_entries"] or out["invalid_files"] or out["failed_verifications"] or
              out["leftover_temp_files"] or out["concurrent_failures"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
