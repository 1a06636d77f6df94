#!/usr/bin/env python3
"""I/O faults injected at every call SQLite writes the tuning database through (docs/reliability.md,
"When the disk fails"; docs/database.md).

The program is tests/sqlite/resume_child.cpp (aoe_test_sqlite_resume_child): it tunes the bowl
landscape (deterministic values, no sleep here) into a TuningDatabase. On a database that an
earlier run of another problem filled (the old state), one run under the fault shim
(tests/support/fault_shim) counts the calls of open, write, pwrite, fsync, fdatasync,
ftruncate, fcntl (locks), rename, unlink and mkdir on the database's directory, with no fault
(the new state); then each of those calls is made to fail in turn, one run per call, with an
errno (ENOSPC, EIO, EROFS, EDQUOT, EACCES, EINTR) or, for a pwrite or write, a short write.
After every run it checks, on a copy of the database's directory, that

  * the database opens and passes PRAGMA integrity_check,
  * its content is the old state plus a prefix of the new run's transactions, never half of
    one: the old runs, trials and best rows unchanged; at most one new run, whose row is the
    new state's (finished or not), whose trials are the first k * batch trials of the new
    state's (or all of them), identical; each best row the old or the new one,
  * no file is left in the directory but the database and the ones SQLite keeps by design in
    WAL mode (<db>-wal and <db>-shm; the next connection recovers from them),
  * the exit code is the documented one: 0 (the fault was retried or absorbed, listed by call
    under "absorbed"), 2 (the database did not open) or 3 (a repository error: the run went on
    without its log), with a message naming the database (and SQLite's kind of error: "disk
    I/O error", "database or disk is full", ...; one that lacks the errno's text is listed
    under "messages_without_errno", a problem unless SQLite gives no errno back after its kind
    of error (--messages=known, the default; strict: always a problem); one that names another
    errno is always a problem),

then runs the program again with no fault: it must exit 0 and leave the new state (a resumed
run counts its resumption: the column `resumed` is masked; timestamps, host and pid are masked
everywhere) and the same history as the run with no fault, which the program writes to a file
(or, when the faulted run had stored its best, the history of a database hit).
Prints one JSON object (calls by kind, runs, exit codes, the files SQLite left, the faults
absorbed, problems, seconds); exits 1 if any check failed.

  fault_injection_sqlite.py --child build/ci/tests/aoe_test_sqlite_resume_child \\
      --shim build/ci/tests/libaoe_fault_shim.so [--every-errno]
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

try:
    import sqlite3
except ImportError:  # Python built without it: the check cannot run (ctest and meson: skipped)
    print("skipped: this Python has no sqlite3 module")
    sys.exit(77)

CALLS = "open,write,pwrite,fsync,fdatasync,ftruncate,fcntl,rename,unlink,mkdir"
ERRNOS = ["ENOSPC", "EIO", "EROFS", "EDQUOT", "EACCES", "EINTR", "short"]
TEXT = {"ENOSPC": "No space left on device", "EIO": "Input/output error",
        "EROFS": "Read-only file system", "EDQUOT": "Disk quota exceeded",
        "EACCES": "Permission denied", "EINTR": "Interrupted system call"}
# SQLite's own words for an errno, as good as its text: it says "database or disk is full" for
# ENOSPC only (os_unix.c).
SQLITE_TEXT = {"ENOSPC": "database or disk is full"}
# The three kinds of error after which SQLite gives no errno back (docs/database.md): a file
# that did not open (<db>-wal, <db>-shm), a database that SQLite opened read-only after its
# read-write open failed, and a lock of <db>-shm that failed until SQLite gave up. With
# --messages=known, a message without the errno is a problem unless it is one of these.
WITHOUT_ERRNO = ("unable to open database file", "attempt to write a readonly database",
                 "locking protocol")
DB = "tuning.db"
BY_DESIGN = (DB + "-wal", DB + "-shm")
RUN_COLUMNS = ("id, problem, device, space_fingerprint, seed, policy, batch_size, parameters, "
               "finished_at IS NOT NULL, reason, evaluations, best_value")
TRIAL_COLUMNS = "run_id, evaluation, configuration, status, value, samples, message"
BEST_COLUMNS = ("problem, device, space_fingerprint, configuration, value, policy, evaluations, "
                "run_id")


def content(directory):
    """(integrity, {runs}, {run: [trials]}, {best}) of a copy of the database in `directory`."""
    copy = tempfile.mkdtemp(prefix="aoe_db_check_")
    try:
        for name in os.listdir(directory):
            shutil.copy(os.path.join(directory, name), copy)
        c = sqlite3.connect(os.path.join(copy, DB))
        try:
            integrity = c.execute("PRAGMA integrity_check").fetchone()[0]
            tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not {"runs", "trials", "best"} <= tables:
                return integrity, {}, {}, {}
            runs = {r[0]: r for r in c.execute("SELECT %s FROM runs" % RUN_COLUMNS)}
            trials = {}
            for r in c.execute("SELECT %s FROM trials ORDER BY run_id, evaluation" %
                               TRIAL_COLUMNS):
                trials.setdefault(r[0], []).append(r)
            best = {r[:3]: r for r in c.execute("SELECT %s FROM best" % BEST_COLUMNS)}
            return integrity, runs, trials, best
        finally:
            c.close()
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def state_problems(state, old, new, batch):
    """What makes `state` other than the old state plus whole transactions of the new one."""
    integrity, runs, trials, best = state
    _, old_runs, old_trials, old_best = old
    _, new_runs, new_trials, new_best = new
    out = []
    if integrity != "ok":
        return ["integrity_check: " + str(integrity)[:200]]
    for rid, row in old_runs.items():
        if runs.get(rid) != row or trials.get(rid, []) != old_trials.get(rid, []):
            out.append("old run %d changed" % rid)
    added = [rid for rid in runs if rid not in old_runs]
    if len(added) > 1:
        out.append("%d new runs (one at most)" % len(added))
    for rid in added:
        row, want = runs[rid], new_runs.get(rid)
        if want is None or (row != want and (row[8] or row[:8] != want[:8] or any(row[9:]))):
            out.append("new run %d is not the new state's row (finished or not): %r" % (rid, row))
        got, full = trials.get(rid, []), new_trials.get(rid, [])
        if got != full[:len(got)] or (len(got) % batch != 0 and len(got) != len(full)):
            out.append("run %d: its %d trials are not whole batches of the new state's" %
                       (rid, len(got)))
    for key, row in best.items():
        # A run whose log did not open stores its best with no run (run_id NULL).
        unlogged = row[7] is None and new_best.get(key, ())[:7] == row[:7]
        if row != old_best.get(key) and row != new_best.get(key) and not unlogged:
            out.append("best row %r is neither the old nor the new one" % (key,))
    for key in old_best:
        if key not in best:
            out.append("best row %r of the old state is lost" % (key,))
    return out


class Runner:
    def __init__(self, a, scratch):
        self.a = a
        self.base = os.path.join(scratch, "base")
        self.dir = os.path.join(scratch, "db")
        self.db = os.path.join(self.dir, DB)
        self.out = os.path.join(scratch, "history.txt")
        self.log = os.path.join(scratch, "shim.log")

    def fresh(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.copytree(self.base, self.dir)

    def run(self, problem="bowl", nth=0, errno="EIO", shim=True, trace=False):
        env = {k: v for k, v in os.environ.items() if not k.startswith("AOE_FAULT_")}
        if shim:
            if os.path.exists(self.log):
                os.remove(self.log)
            env.update({"LD_PRELOAD": self.a.shim, "AOE_FAULT_UNDER": self.dir,
                        "AOE_FAULT_LOG": self.log, "AOE_FAULT_NTH": str(nth),
                        "AOE_FAULT_ERRNO": errno, "AOE_FAULT_CALLS": self.a.calls,
                        "AOE_FAULT_TRACE": "1" if trace else "0"})
        if os.path.exists(self.out):
            os.remove(self.out)
        args = [self.a.child, self.db, "random", str(self.a.budget), str(self.a.batch),
                "1", self.out, "0", problem]
        r = subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, errors="replace", check=False)
        calls, faults = [], []
        if shim and os.path.exists(self.log):
            with open(self.log, encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith("call "):
                        calls.append(line.split(" ", 3)[2])
                    elif line.startswith("fault "):
                        _, n, call, name, path = line.rstrip("\n").split(" ", 4)
                        faults.append((int(n), call, name, path))
        history = None
        if os.path.exists(self.out):
            with open(self.out, encoding="utf-8") as f:
                history = [ln for ln in f if not ln.startswith("replayed ")]
        return r, calls, faults, history


def left_files(runner, out):
    """Files in the database's directory beyond the database; counts SQLite's WAL files."""
    extra = []
    for name in sorted(os.listdir(runner.dir)):
        if name == DB:
            continue
        if name in BY_DESIGN:
            out["left_by_design"][name[len(DB):]] = out["left_by_design"].get(name[len(DB):],
                                                                              0) + 1
        else:
            extra.append(name)
    return extra


def check_fault(runner, ref, nth, errno, out):
    runner.fresh()
    t0 = time.monotonic()
    r, _, faults, _ = runner.run(nth=nth, errno=errno)
    seconds = time.monotonic() - t0
    tag = "call %d %s" % (nth, errno)
    if not faults:
        out["problems"].append(tag + ": the shim made no fault (the count changed)")
        call, path = "?", ""
    else:
        _, call, _, path = faults[0]
        tag += " (%s %s)" % (call, os.path.basename(path))
    out["slowest"] = sorted(out["slowest"] + [[round(seconds, 2), tag]], reverse=True)[:5]
    code = str(r.returncode)
    out["exit_codes"][code] = out["exit_codes"].get(code, 0) + 1
    by = out["exits_by_errno"].setdefault(errno, {})
    by[code] = by.get(code, 0) + 1
    if r.returncode != 0:
        by_call = out["errors_by_call"].setdefault("%s %s" % (call, errno), {})
        by_call[code] = by_call.get(code, 0) + 1
    problems = []
    state = None
    try:
        state = content(runner.dir)
        problems += [tag + ": " + p for p in state_problems(state, ref["old"], ref["new"],
                                                          runner.a.batch)]
    except sqlite3.Error as e:
        problems.append(tag + ": the database does not open: %s" % e)
    problems += [tag + ": file left: " + f for f in left_files(runner, out)]
    named = re.search(r"\(errno (\d+)\)", r.stderr)
    if named and errno in TEXT and TEXT[errno] not in r.stderr:
        problems.append(tag + ": the message names another errno: " + r.stderr.strip()[-200:])
    if r.returncode in (2, 3):
        text = TEXT.get(errno, "")
        said = not text or text in r.stderr or SQLITE_TEXT.get(errno, text) in r.stderr
        if runner.db not in r.stderr or not said:
            out["messages_without_errno"].append("%s: %s" % (tag, r.stderr.strip()[-200:]))
            known = any(kind in r.stderr for kind in WITHOUT_ERRNO)
            if runner.a.messages == "strict" or (runner.a.messages == "known" and not known) \
                    or runner.db not in r.stderr:
                problems.append(tag + ": exit %d without the database and '%s': %s" %
                                (r.returncode, text, r.stderr.strip()[-300:]))
    elif r.returncode == 0:
        if errno in ("EINTR", "short") and state is not None and state[1:] == ref["new"][1:]:
            out["retried_to_the_new_state"] += 1
        key = "%s %s %s" % (call, errno, os.path.basename(path))
        out["absorbed"][key] = out["absorbed"].get(key, 0) + 1
    else:
        problems.append(tag + ": exit %d, expected 0, 2 or 3: %s" %
                        (r.returncode, r.stderr.strip()[-300:]))
    clean, _, _, history = runner.run(shim=False)
    if clean.returncode != 0:
        problems.append(tag + ": the run after it exited %d: %s" %
                        (clean.returncode, clean.stderr.strip()[-300:]))
    else:
        after = content(runner.dir)
        # A faulted run that stored its best leaves a database hit to the next run, which
        # writes nothing: a log the fault cut stays as it was (unfinished).
        hit = state is not None and ref["key"] in state[3]
        if after[1:] != (state[1:] if hit else ref["new"][1:]):
            problems.append(tag + ": the run after it did not end in the %s state" %
                            ("faulted run's" if hit else "new"))
        if history != (ref["hit_history"] if hit else ref["history"]):
            problems.append(tag + ": the run after it has another history than a run with no "
                                  "fault")
    problems += [tag + ": file left after the next run: " + f for f in left_files(runner, out)]
    out["runs"] += 1
    out["problems"] += problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", required=True, help="aoe_test_sqlite_resume_child")
    ap.add_argument("--shim", required=True, help="the fault shim (libaoe_fault_shim.so)")
    ap.add_argument("--every-errno", action="store_true",
                    help="fail each call with every errno (else one errno per call, in turn)")
    ap.add_argument("--calls", default=CALLS,
                    help="the calls counted and failed (default: all ten; CI leaves out fcntl, "
                         "whose failing locks SQLite's busy handler retries for seconds)")
    ap.add_argument("--limit", type=int, default=0, help="at most this many calls")
    ap.add_argument("--budget", type=int, default=8)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--messages", choices=["known", "strict", "count"], default="known",
                    help="an exit 2 or 3 whose message lacks the errno's text is a problem "
                         "unless SQLite gives none back after that kind of error (known, the "
                         "default: docs/database.md), always (strict) or never (count)")
    a = ap.parse_args()
    a.child, a.shim = os.path.abspath(a.child), os.path.abspath(a.shim)
    start = time.monotonic()
    scratch = tempfile.mkdtemp(prefix="aoe_db_faults_")
    out = {"errnos": ERRNOS, "calls_counted": a.calls, "every_errno": a.every_errno, "calls": 0, "runs": 0, "faults": {},
           "exit_codes": {}, "left_by_design": {}, "absorbed": {}, "messages_without_errno": [], "slowest": [], "exits_by_errno": {},
           "errors_by_call": {}, "retried_to_the_new_state": 0,
           "problems": []}
    try:
        runner = Runner(a, scratch)
        os.makedirs(runner.dir)
        seeded, _, _, _ = runner.run(problem="other", shim=False)
        shutil.copytree(runner.dir, runner.base)
        ref = {"old": content(runner.base)}
        runner.fresh()
        r, calls, faults, history = runner.run(trace=True)
        if seeded.returncode != 0 or r.returncode != 0 or faults or not calls:
            out["problems"].append("the runs with no fault exited %d, %d with %d calls: %s" %
                                   (seeded.returncode, r.returncode, len(calls),
                                    (seeded.stderr + r.stderr).strip()[-300:]))
        else:
            ref["new"], ref["history"] = content(runner.dir), history
            ref["key"] = next(k for k in ref["new"][3] if k not in ref["old"][3])
            ref["hit_history"] = runner.run(shim=False)[3]
            out["calls"] = len(calls)
            out["calls_by_kind"] = {k: calls.count(k) for k in sorted(set(calls))}
            last = len(calls) if a.limit <= 0 else min(len(calls), a.limit)
            for nth in range(1, last + 1):
                writes = calls[nth - 1] in ("write", "pwrite")
                fitting = [e for e in ERRNOS if e != "short" or writes]
                names = fitting if a.every_errno else [fitting[(nth - 1) % len(fitting)]]
                for errno in names:
                    out["faults"][errno] = out["faults"].get(errno, 0) + 1
                    check_fault(runner, ref, nth, errno, out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    out["problem_count"] = len(out["problems"])
    out["problems"] = out["problems"][:20]
    out["messages_without_errno_count"] = len(out["messages_without_errno"])
    out["messages_without_errno"] = out["messages_without_errno"][:10]
    out["seconds"] = round(time.monotonic() - start, 1)
    print(json.dumps(out, indent=2))
    return 1 if out["problem_count"] else 0


if __name__ == "__main__":
    sys.exit(main())
