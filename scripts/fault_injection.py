#!/usr/bin/env python3
"""I/O faults injected at every write of aoe's jobs (docs/reliability.md, "When the disk fails").

For each job (OPAT, SGAT, GDAT) on one small model, over a bank that an earlier run of another
model filled: one run under the fault shim (tests/support/fault_shim) counts the calls of open,
write, fsync, rename, unlink, flock and mkdir on the bank and work directories, with no fault;
then each of those calls is made to fail in turn, one run per call, with an errno (ENOSPC, EIO,
EROFS, EDQUOT, EACCES: the documented exit 5 and a message that names the file's directory and
the errno; EINTR and short writes: retried, exit 0, the same bank as the run with no fault).
After every run it checks that

  * every bank file reads back whole (JSON, JSON lines for the graph bank; NaN is not JSON), and
    each of its entries is the entry of the bank before the run or the one of the run with no
    fault (old or new, never a mix); no entry of the bank before the run is lost,
  * no temporary file of the atomic writer is left in the bank or work directory (but the file
    whose unlink was the call made to fail, which the next run removes),
  * the exit code is the documented one (5, or 0 when the fault was retried or the call's
    failure cannot harm: such faults are listed by call under "absorbed"),

then runs the job again with no fault: it must exit 0 and leave the same bank as the run with
no fault (timestamps masked), with no temporary file left. With --values=count, a bank with the
same entries but other values (operators tuned again in another order than the run with no
fault) is counted under "reruns_with_other_values" instead.

Prints one JSON object per run of the script: per job the calls counted, the runs, the exit
codes, the faults absorbed and the problems; exits 1 if any check failed. CI runs every call of
one small model with one errno each (the errnos in turn); bench/fault_injection.sh runs every
call with every errno, on the examples' models too:

  fault_injection.py --aoe build/ci/tools/aoe --shim build/ci/tests/libaoe_fault_shim.so
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "examples", "models")
TEMP_MARKER = ".aoe-tmp."
JOBS = {"opat": 2, "sgat": 1, "gdat": 4}
ERRNOS = ["ENOSPC", "EIO", "EROFS", "EDQUOT", "EACCES", "EINTR", "short"]
TEXT = {"ENOSPC": "No space left on device", "EIO": "Input/output error",
        "EROFS": "Read-only file system", "EDQUOT": "Disk quota exceeded",
        "EACCES": "Permission denied"}
RETRIED = ("EINTR", "short")


def tiny_model(name, channels):
    """Two convolutions and a ReLU: trainable weights (GDAT), fusable operators (OPAT, SGAT)."""
    c = channels
    t = {"x": [1, c, 8, 8], "w": [c, c, 3, 3], "y": [1, c, 8, 8], "z": [1, c, 8, 8],
         "w2": [c, c, 3, 3], "o": [1, c, 8, 8]}
    conv = {"strides": [1, 1, 1, 1], "pads": [1, 1, 1, 1], "groups": 1}
    return {"format_version": 1, "name": name,
            "tensors": {k: {"shape": v, "dtype": "float16", "format": "NCHW"}
                        for k, v in t.items()},
            "nodes": [{"name": "conv", "type": "Conv2D", "inputs": ["x", "w"], "outputs": ["y"],
                       "attributes": conv},
                      {"name": "relu", "type": "Relu", "inputs": ["y"], "outputs": ["z"]},
                      {"name": "conv2", "type": "Conv2D", "inputs": ["z", "w2"],
                       "outputs": ["o"], "attributes": conv}]}


def strict_json(text):
    def reject(name):
        raise ValueError("not JSON: " + name)

    return json.loads(text, parse_constant=reject)


def masked(value):
    """`value` without its timestamps (they differ from run to run)."""
    if isinstance(value, dict):
        return {k: masked(v) for k, v in value.items() if k != "timestamp"}
    if isinstance(value, list):
        return [masked(v) for v in value]
    return value


def bank_entries(root):
    """{(file, key): masked entry} of every bank file under `root`; raises on a file that does
    not read back whole."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if TEMP_MARKER in name or name.endswith(".lock"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            with open(path, "rb") as f:
                text = f.read().decode("utf-8")
            if name.endswith("_l2cache.json"):  # SGAT graph bank: JSON lines
                for n, line in enumerate(text.splitlines()):
                    o = strict_json(line)
                    key = "header" if n == 0 else (o["repo_key"], o["signature"])
                    out[(rel, key)] = json.dumps(masked(o), sort_keys=True)
            elif name.endswith("_gradient_fusion.json"):
                for e in strict_json(text):
                    key = (e["modelhash"], e.get("openaoe", {}).get("cluster", ""))
                    out[(rel, key)] = json.dumps(masked(e), sort_keys=True)
            else:
                o = strict_json(text)
                for k, v in o["entries"].items():
                    out[(rel, k)] = json.dumps(masked(v), sort_keys=True)
                head = {k: v for k, v in o.items() if k != "entries"}
                out[(rel, "header")] = json.dumps(head, sort_keys=True)
    return out


def temp_files(*roots):
    found = []
    for root in roots:
        for dirpath, _, files in os.walk(root):
            found += [os.path.join(dirpath, f) for f in files if TEMP_MARKER in f]
    return found


def invalid_outputs(work):
    bad = []
    for dirpath, _, files in os.walk(work):
        for name in files:
            if TEMP_MARKER in name or not name.endswith(".json"):
                continue
            try:
                with open(os.path.join(dirpath, name), "rb") as f:
                    strict_json(f.read().decode("utf-8"))
            except Exception as e:  # noqa: BLE001 - any failure to load is the finding
                bad.append("%s: %s" % (name, e))
    return bad


class Runner:
    def __init__(self, a, scratch, job, model):
        self.a = a
        self.job = job
        self.model = model
        self.base = os.path.join(scratch, "base")
        self.dir = os.path.join(scratch, "run")
        self.bank = os.path.join(self.dir, "bank")
        self.work = os.path.join(self.dir, "work")
        self.log = os.path.join(scratch, "shim.log")

    def fresh(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.copytree(self.base, self.dir, symlinks=True)

    def run(self, nth=0, errno="EIO", shim=True, model=None, trace=False):
        env = dict(os.environ)
        for k in list(env):
            if k.startswith("AOE_FAULT_") or k in ("AOE_MODE", "REPEAT_TUNE"):
                env.pop(k)
        env.update({"TUNE_BANK_PATH": self.bank, "ASCEND_WORK_PATH": self.work,
                    "TUNING_PARALLEL_NUM": "1"})
        if shim:
            if os.path.exists(self.log):
                os.remove(self.log)
            env.update({"LD_PRELOAD": self.a.shim, "AOE_FAULT_UNDER": self.dir,
                        "AOE_FAULT_LOG": self.log, "AOE_FAULT_NTH": str(nth),
                        "AOE_FAULT_ERRNO": errno, "AOE_FAULT_TRACE": "1" if trace else "0"})
        args = [self.a.aoe, "--model=" + (model or self.model), "--job_type=%d" % JOBS[self.job],
                "--budget=%d" % self.a.budget, "--seed=%d" % self.a.seed, "--log=warning"]
        r = subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, errors="replace", check=False)
        calls, faults = [], []
        if shim and os.path.exists(self.log):
            with open(self.log, encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith("call "):
                        calls.append(line.split(" ", 3)[2])
                    elif line.startswith("calls ") and not trace:
                        calls = [None] * int(line.split()[1])
                    elif line.startswith("fault "):
                        _, n, call, name, path = line.rstrip("\n").split(" ", 4)
                        faults.append((int(n), call, name, path))
        return r, calls, faults


def where(path, runner):
    """A faulted path without the scratch directory and the temporary name's random part."""
    p = re.sub(r"_\d{8}_\d{9}", "_<time>", path.replace(runner.dir + "/", ""))
    if TEMP_MARKER in p:
        p = p[:p.index(TEMP_MARKER)] + TEMP_MARKER + "*"
    return p


def check_fault(runner, reference, before, nth, errno, out):
    """One run with call `nth` failing with `errno`, then one with no fault."""
    runner.fresh()
    r, _, faults = runner.run(nth, errno)
    problems = []
    tag = "call %d %s" % (nth, errno)
    if not faults:
        problems.append(tag + ": the shim made no fault (the count changed)")
        call, path = "?", ""
    else:
        _, call, _, path = faults[0]
        tag += " (%s %s)" % (call, where(path, runner))
    out["exit_codes"][str(r.returncode)] = out["exit_codes"].get(str(r.returncode), 0) + 1
    try:
        after = bank_entries(runner.bank)
    except Exception as e:  # noqa: BLE001
        problems.append(tag + ": a bank file does not read back whole: %s" % e)
        after = None
    if after is not None:
        for k, v in after.items():
            if v != reference.get(k) and v != before.get(k):
                problems.append(tag + ": entry %r is neither the old nor the new one" % (k,))
        for k in before:
            if k not in after:
                problems.append(tag + ": entry %r of the bank before the run is lost" % (k,))
    problems += [tag + ": invalid output " + b for b in invalid_outputs(runner.work)]
    left = temp_files(runner.bank, runner.work)
    if left and not (call == "unlink" and left == [path]):
        problems.append(tag + ": temporary file left: " + where(left[0], runner))
    if errno in RETRIED:
        if r.returncode != 0:
            problems.append(tag + ": exit %d, expected 0 (retried): %s" %
                            (r.returncode, r.stderr.strip()[-300:]))
        elif after is not None and after != reference:
            problems.append(tag + ": retried, but the bank differs from the run with no fault")
    elif r.returncode == 5:
        names_dir = path and os.path.dirname(path) in r.stderr
        if TEXT[errno] not in r.stderr or not names_dir:
            problems.append(tag + ": exit 5 without the directory and '%s': %s" %
                            (TEXT[errno], r.stderr.strip()[-300:]))
    elif r.returncode == 0:
        key = "%s %s" % (call, where(path, runner))
        out["absorbed"][key] = out["absorbed"].get(key, 0) + 1
    else:
        problems.append(tag + ": exit %d, expected 5: %s" % (r.returncode,
                                                             r.stderr.strip()[-300:]))
    clean, _, _ = runner.run(shim=False)
    if clean.returncode != 0:
        problems.append(tag + ": the run after it exited %d: %s" %
                        (clean.returncode, clean.stderr.strip()[-300:]))
    else:
        try:
            rerun = bank_entries(runner.bank)
            if set(rerun) != set(reference):
                problems.append(tag + ": the run after it left other entries than a run with "
                                "no fault")
            elif rerun != reference:
                other = sorted(k for k in rerun if rerun[k] != reference[k])
                out["reruns_with_other_values"] += 1
                if runner.a.strict_values:
                    problems.append(tag + ": the run after it stored other values for %d "
                                    "entries than a run with no fault, e.g. %r" %
                                    (len(other), other[0][1][:80]))
        except Exception as e:  # noqa: BLE001
            problems.append(tag + ": after the next run a bank file does not read: %s" % e)
    left = temp_files(runner.bank, runner.work)
    if left:
        problems.append(tag + ": temporary file left after the next run: " +
                        where(left[0], runner))
    out["runs"] += 1
    out["problems"] += problems
    return not problems


def run_job(a, scratch, job, model, seed_model):
    out = {"job": job, "model": os.path.basename(model), "calls": 0, "runs": 0, "faults": {},
           "exit_codes": {}, "absorbed": {}, "reruns_with_other_values": 0, "problems": []}
    runner = Runner(a, scratch, job, model)
    os.makedirs(os.path.join(runner.base, "bank"))
    os.makedirs(os.path.join(runner.base, "work"))
    # The bank before the runs: what another model's run left, so that faults hit the rewrite
    # of existing bank files, not only their creation.
    runner.fresh()
    seeded, _, _ = runner.run(shim=False, model=seed_model)
    if seeded.returncode != 0:
        out["problems"].append("the run that fills the bank exited %d: %s" %
                               (seeded.returncode, seeded.stderr.strip()[-300:]))
        return out
    shutil.rmtree(os.path.join(runner.dir, "work"))
    os.makedirs(os.path.join(runner.dir, "work"))
    shutil.rmtree(runner.base)
    shutil.copytree(runner.dir, runner.base, symlinks=True)
    before = bank_entries(runner.base + "/bank")
    runner.fresh()
    r, calls, faults = runner.run(0, trace=True)
    if r.returncode != 0 or faults or not calls:
        out["problems"].append("the run with no fault exited %d with %d calls: %s" %
                               (r.returncode, len(calls), r.stderr.strip()[-300:]))
        return out
    reference = bank_entries(runner.bank)
    out["calls"] = len(calls)
    out["calls_by_kind"] = {k: calls.count(k) for k in sorted(set(calls))}
    last = len(calls) if a.limit <= 0 else min(len(calls), a.limit)
    for nth in range(1, last + 1):
        # A short write is a write's; every other call fails with an errno.
        fitting = [e for e in ERRNOS if e != "short" or calls[nth - 1] == "write"]
        names = fitting if a.every_errno else [fitting[(nth - 1) % len(fitting)]]
        for errno in names:
            out["faults"][errno] = out["faults"].get(errno, 0) + 1
            check_fault(runner, reference, before, nth, errno, out)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--aoe", required=True, help="the aoe executable")
    ap.add_argument("--shim", required=True, help="the fault shim (libaoe_fault_shim.so)")
    ap.add_argument("--jobs", default="opat,sgat,gdat")
    ap.add_argument("--models", default="tiny",
                    help="'tiny' (a built-in model of 3 operators), or comma-separated files")
    ap.add_argument("--every-errno", action="store_true",
                    help="fail each call with every errno (else one errno per call, in turn)")
    ap.add_argument("--limit", type=int, default=0, help="at most this many calls per job")
    ap.add_argument("--budget", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--values", choices=["strict", "count"], default="strict",
                    help="a run after a fault that stores the same entries with other values "
                         "(tuned again in another order) is a problem (strict) or only counted")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    a = ap.parse_args()
    a.strict_values = a.values == "strict"
    a.aoe = os.path.abspath(a.aoe)
    a.shim = os.path.abspath(a.shim)
    start = time.monotonic()
    scratch = tempfile.mkdtemp(prefix="aoe_faults_")
    result = {"errnos": ERRNOS, "every_errno": a.every_errno, "jobs": []}
    try:
        if a.models == "tiny":
            models = [os.path.join(scratch, "tiny.json")]
            with open(models[0], "w", encoding="utf-8") as f:
                json.dump(tiny_model("tiny", 16), f)
        else:
            models = [os.path.abspath(m) for m in a.models.split(",")]
        seed_model = os.path.join(scratch, "seed.json")
        with open(seed_model, "w", encoding="utf-8") as f:
            json.dump(tiny_model("seed", 32), f)
        for model in models:
            for job in a.jobs.split(","):
                t0 = time.monotonic()
                d = os.path.join(scratch, "%s_%s" % (job, os.path.basename(model)))
                os.makedirs(d)
                out = run_job(a, d, job, model, seed_model)
                out["seconds"] = round(time.monotonic() - t0, 1)
                out["problem_count"] = len(out["problems"])
                out["problems"] = out["problems"][:10]
                result["jobs"].append(out)
    finally:
        if not a.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    result["runs"] = sum(j["runs"] for j in result["jobs"])
    result["problems"] = sum(j["problem_count"] for j in result["jobs"])
    result["seconds"] = round(time.monotonic() - start, 1)
    if a.keep:
        result["scratch"] = scratch
    print(json.dumps(result, indent=2))
    return 1 if result["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
