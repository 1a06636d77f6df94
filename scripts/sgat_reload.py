#!/usr/bin/env python3
"""SGAT's --reload after kill -9 at random points (docs/sgat.md#reload).

Runs one subgraph tuning job (`aoe --job_type=1`) to its end, untouched: the reference. Then,
per trial, in a fresh bank and work directory, the same job is killed with SIGKILL at a uniform
moment of its run, and `aoe --reload` is run until it ends; each reload may itself be killed
(up to --max-kills in all). Every trial must end with the reference's

  * graph bank (every line, in order; each record's provenance time stamp left out),
  * result file (the report's key, which holds the stamp and tid, and the tuning time left out),
  * tuned model (byte for byte),

and every run of aoe must end with exit 0 unless it was killed. Until one reload has continued a
job from the middle, trials go on (up to 5 times --trials). Prints one JSON object: trials,
kills, reloads, reloads_mid_job (a reload that continued a checkpoint from a subgraph after the
first: the kill fell inside the job), mismatches, failed_runs, seconds. Exits 1 when a check
failed, or when no reload at all continued a job from the middle (the test then proved nothing).

  sgat_reload.py --aoe build/ci/tools/aoe --trials 6
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "examples", "models")


def environment(root):
    env = dict(os.environ)
    for name in list(env):
        if name.startswith(("TUNE_BANK", "ASCEND_", "AOE_", "REPEAT_TUNE", "TUNING_")):
            del env[name]
    env.update({"TUNE_BANK_PATH": os.path.join(root, "bank"),
                "ASCEND_WORK_PATH": os.path.join(root, "work"),
                "HOME": root, "TUNING_PARALLEL_NUM": "2"})
    os.makedirs(os.path.join(root, "bank"), exist_ok=True)
    return env


def command(a, reload):
    args = [a.aoe, "--model=" + a.model, "--job_type=1", "--budget=%d" % a.budget,
            "--seed=%d" % a.seed, "--progress_bar=off", "--report=off"]
    return args + (["--reload"] if reload else [])


def outputs(stdout):
    """The result file and tuned model a finished run names on stdout."""
    found = {}
    for key in ("result file", "tuned model"):
        m = re.search(r"^aoe: %s (.+)$" % key, stdout, re.M)
        if m is None:
            raise ValueError("no 'aoe: %s' line in the output" % key)
        found[key] = m.group(1)
    return found


def bank_lines(root):
    lines = []
    for dirpath, _, files in os.walk(os.path.join(root, "bank")):
        for name in sorted(files):
            if not name.endswith("_l2cache.json"):
                continue
            with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                for line in f:
                    o = json.loads(line)
                    o.get("provenance", {}).pop("timestamp", None)
                    lines.append(json.dumps(o, sort_keys=True))
    return lines


def result_body(path):
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    (entries,) = report.values()  # one report_${timestamp}_${tid}
    entries[0]["basic"].pop("tuning_time(s)", None)
    return json.dumps(entries, sort_keys=True)


def state(root, stdout):
    files = outputs(stdout)
    with open(files["tuned model"], "rb") as f:
        model = f.read()
    return {"bank": bank_lines(root), "result": result_body(files["result file"]),
            "tuned_model": model}


def trial(a, rng, root, duration, out):
    env = environment(root)
    kills = 0
    reload = False
    for _ in range(a.max_kills + 2):
        p = subprocess.Popen(command(a, reload), env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        if kills < a.max_kills and (kills == 0 or rng.random() < 0.5):
            try:
                p.wait(timeout=rng.uniform(0, 1.1 * duration))
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
            kills += 1
        stdout, stderr = p.communicate()
        if reload:
            out["reloads"] += 1
            m = re.search(r"continued .* from subgraph (\d+)", stdout)
            if m is not None and int(m.group(1)) > 1:
                out["reloads_mid_job"] += 1
        if p.returncode == -signal.SIGKILL:
            out["kills"] += 1
            reload = True
            continue
        if p.returncode != 0:
            out["failed_runs"].append("exit %d: %s" % (p.returncode, stderr.strip()[-400:]))
            return None
        return state(root, stdout)
    out["failed_runs"].append("no run ended within %d runs" % (a.max_kills + 2))
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--aoe", required=True)
    ap.add_argument("--model", default=os.path.join(MODELS, "resnet50.json"))
    ap.add_argument("--trials", type=int, default=6)
    ap.add_argument("--budget", type=int, default=48)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--max-kills", type=int, default=3)
    ap.add_argument("--random-seed", type=int, default=None)
    a = ap.parse_args()
    rng = random.Random(a.random_seed)
    out = {"trials": a.trials, "kills": 0, "reloads": 0, "reloads_mid_job": 0, "mismatches": [],
           "failed_runs": [], "seconds": 0.0}
    started = time.monotonic()
    scratch = tempfile.mkdtemp(prefix="aoe-sgat-reload-")
    try:
        ref_root = os.path.join(scratch, "reference")
        t0 = time.monotonic()
        r = subprocess.run(command(a, False), env=environment(ref_root), capture_output=True,
                           text=True)
        duration = time.monotonic() - t0
        if r.returncode != 0:
            out["failed_runs"].append("reference: exit %d: %s" % (r.returncode, r.stderr[-400:]))
        else:
            reference = state(ref_root, r.stdout)
            # The kills fall at random moments: until one reload has continued a job from the
            # middle, more trials are run (up to 5 times as many), so that the check never
            # depends on luck (one in three kills falls there).
            t = 0
            while t < a.trials or (out["reloads_mid_job"] == 0 and t < 5 * a.trials):
                root = os.path.join(scratch, "trial%d" % t)
                got = trial(a, rng, root, duration, out)
                for key in ("bank", "result", "tuned_model"):
                    if got is not None and got[key] != reference[key]:
                        out["mismatches"].append("trial %d: the %s differs" % (t, key))
                shutil.rmtree(root, ignore_errors=True)
                t += 1
            out["trials"] = t
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    out["seconds"] = round(time.monotonic() - started, 1)
    print(json.dumps(out, indent=2))
    ok = not out["mismatches"] and not out["failed_runs"] and out["reloads_mid_job"] > 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
