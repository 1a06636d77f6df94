#!/usr/bin/env python3
"""I/O faults injected at every call of aoe::Online's bank write (docs/reliability.md, "When the
disk fails"; docs/online.md).

The program is tests/online/fault_child.cpp (aoe_test_online_fault_child): a user's loop tuning
two keys online into the knowledge bank, every call reporting an exact cost, so that two runs
store the same values. On an empty bank (a run on a bank that holds its keys is a hit and
writes nothing, so the loop's writes are those of a first run), one run under the fault shim
(tests/support/fault_shim) counts the calls of open, write, fsync, rename, unlink, flock and
mkdir under the bank, with no fault; then each of those calls is made to fail in turn, one run
per call, with an errno (ENOSPC, EIO, EROFS, EDQUOT, EACCES, EINTR) or a short write; every
other run (--persist) the fault stays, every call from that one on failing (a disk that stays
full: the retries fail too). After every run it checks that

  * the program ran its loop to the end ("loop done") and exited 0: a failing store does not
    stop the user's program,
  * every bank file reads back whole and each entry is the one of the run with no fault, or
    that best stored by the retry after a failed store (the same but for the evaluations made
    by then), or an earlier best of the same run (a higher value: Online stores each
    improvement, so a store that failed leaves the one before); the values are deterministic,
    timestamps masked,
  * no temporary file of the atomic writer is left (but one whose unlink failed; the next run
    does not remove it: counted under "temporary_files_not_swept"),
  * when the bank lacks a best of the run with no fault (a key absent, or an earlier best),
    the summary on stderr names the repository error with the bank file's directory and the
    errno's text,

then runs the program again with no fault: it must exit 0, keep the entries the bank holds (a
key the bank holds is not tuned again without REPEAT_TUNE: docs/online.md) and add the missing
ones of the run with no fault, with no temporary file. Prints one JSON object; exits 1 if a check failed.

  fault_injection_online.py --child build/ci/tests/aoe_test_online_fault_child \\
      --shim build/ci/tests/libaoe_fault_shim.so [--every-errno]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fault_injection import ERRNOS, RETRIED, TEXT, bank_entries, temp_files  # noqa: E402


class Runner:
    def __init__(self, a, scratch):
        self.a = a
        self.bank = os.path.join(scratch, "bank")
        self.log = os.path.join(scratch, "shim.log")

    def fresh(self):
        shutil.rmtree(self.bank, ignore_errors=True)
        os.makedirs(self.bank)

    def run(self, nth=0, errno="EIO", shim=True, trace=False, persist=False):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("AOE_FAULT_") and k not in ("AOE_MODE", "REPEAT_TUNE")}
        if shim:
            if os.path.exists(self.log):
                os.remove(self.log)
            env.update({"LD_PRELOAD": self.a.shim, "AOE_FAULT_UNDER": self.bank,
                        "AOE_FAULT_LOG": self.log, "AOE_FAULT_NTH": str(nth),
                        "AOE_FAULT_ERRNO": errno, "AOE_FAULT_TRACE": "1" if trace else "0",
                        "AOE_FAULT_PERSIST": "1" if persist else "0"})
        r = subprocess.run([self.a.child, self.bank, str(self.a.calls)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           errors="replace", check=False)
        calls, faults = [], []
        if shim and os.path.exists(self.log):
            with open(self.log, encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith("call "):
                        calls.append(line.split(" ", 3)[2])
                    elif line.startswith("fault "):
                        _, n, call, name, path = line.rstrip("\n").split(" ", 4)
                        faults.append((int(n), call, name, path))
        return r, calls, faults


def entry_kind(value, reference):
    """How an entry that is not the reference's differs from it, or None if it may not."""
    if reference is None:
        return None
    got, want = json.loads(value), json.loads(reference)
    if got["value"] > want["value"]:
        return "entries_an_earlier_best"  # stored at an earlier improvement
    got["provenance"].pop("evaluations", None)
    want["provenance"].pop("evaluations", None)
    # The best of the run, stored by the retry (at the next improvement or at exit) after the
    # store that failed: the same, with the evaluations made by then.
    return "entries_stored_by_a_retry" if got == want else None


def check_fault(runner, reference, nth, errno, out, persist):
    runner.fresh()
    r, _, faults = runner.run(nth, errno, persist=persist)
    tag = "call %d %s%s" % (nth, errno, " from on" if persist else "")
    problems = []
    if not faults:
        problems.append(tag + ": the shim made no fault (the count changed)")
        call, path = "?", ""
    else:
        _, call, _, path = faults[0]
        tag += " (%s %s)" % (call, os.path.relpath(path, runner.bank))
    code = str(r.returncode)
    out["exit_codes"][code] = out["exit_codes"].get(code, 0) + 1
    if r.returncode != 0 or "loop done %d" % runner.a.calls not in r.stdout:
        problems.append(tag + ": the program did not run its loop to the end (exit %d): %s" %
                        (r.returncode, r.stderr.strip()[-300:]))
    after = None
    try:
        after = bank_entries(runner.bank)
    except Exception as e:  # noqa: BLE001 - any failure to load is the finding
        problems.append(tag + ": a bank file does not read back whole: %s" % e)
    if after is not None:
        behind = [k for k in reference if k not in after]  # keys whose best is not stored
        for k, v in after.items():
            if v == reference.get(k):
                continue
            kind = entry_kind(v, reference.get(k)) if k[1] != "header" else None
            if kind is None:
                problems.append(tag + ": entry %r is neither the run's nor an earlier best of "
                                "it" % (k,))
                continue
            out[kind] += 1
            if kind == "entries_an_earlier_best":
                behind.append(k)
        if not behind:
            out["bank_with_the_run_s_bests"] += 1
        elif errno in RETRIED:
            problems.append(tag + ": retried, but the bank lacks bests of the run with no fault")
        else:
            out["bank_behind_the_run"] += 1
            names_dir = path and os.path.dirname(path) in r.stderr
            if "repository: " not in r.stderr or TEXT[errno] not in r.stderr or not names_dir:
                problems.append(tag + ": the bank lacks bests of the run, but the summary does "
                                "not name the directory and '%s': %s" %
                                (TEXT[errno], r.stderr.strip()[-300:]))
    left = temp_files(runner.bank)
    unlinked = {p for _, c, _, p in faults if c == "unlink"}  # a failed unlink leaves its file
    if left and not set(left) <= unlinked:
        problems.append(tag + ": temporary file left: " + os.path.relpath(left[0], runner.bank))
    # The next run uses what the bank holds (a hit, not tuned again without REPEAT_TUNE) and
    # tunes the keys it lacks: it must end with the faulted run's entries and the missing ones
    # of the run with no fault.
    clean, _, _ = runner.run(shim=False)
    if clean.returncode != 0:
        problems.append(tag + ": the run after it exited %d" % clean.returncode)
    elif after is not None:
        expected = dict(reference)
        expected.update(after)
        if bank_entries(runner.bank) != expected:
            problems.append(tag + ": the run after it did not keep the bank's entries and add "
                            "the missing ones of a run with no fault")
    # The next run's first read of the bank sweeps a dead writer's temporary files, the one
    # whose unlink failed included (docs/online.md#when-the-disk-fails).
    stale = temp_files(runner.bank)
    if stale:
        out["temporary_files_not_swept"] += 1
        problems.append(tag + ": temporary file left after the next run: " +
                        os.path.relpath(stale[0], runner.bank))
    out["runs"] += 1
    out["problems"] += problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", required=True, help="aoe_test_online_fault_child")
    ap.add_argument("--shim", required=True, help="the fault shim (libaoe_fault_shim.so)")
    ap.add_argument("--every-errno", action="store_true",
                    help="fail each call with every errno (else one errno per call, in turn)")
    ap.add_argument("--persist", choices=["no", "yes", "alternate"], default="alternate",
                    help="whether the fault stays (every counted call from the Nth on fails: a "
                         "disk that stays full), for every run or every other one")
    ap.add_argument("--calls", type=int, default=40, help="the loop's calls per key")
    a = ap.parse_args()
    a.child, a.shim = os.path.abspath(a.child), os.path.abspath(a.shim)
    start = time.monotonic()
    scratch = tempfile.mkdtemp(prefix="aoe_online_faults_")
    out = {"errnos": ERRNOS, "every_errno": a.every_errno, "calls": 0, "runs": 0, "faults": {},
           "exit_codes": {}, "bank_with_the_run_s_bests": 0, "bank_behind_the_run": 0,
           "entries_an_earlier_best": 0, "entries_stored_by_a_retry": 0, "persistent_faults": 0,
           "temporary_files_not_swept": 0,
           "problems": []}
    try:
        runner = Runner(a, scratch)
        runner.fresh()
        r, calls, faults = runner.run(trace=True)
        if r.returncode != 0 or faults or not calls:
            out["problems"].append("the run with no fault exited %d with %d calls: %s" %
                                   (r.returncode, len(calls), r.stderr.strip()[-300:]))
        else:
            reference = bank_entries(runner.bank)
            runner.fresh()
            again, _, _ = runner.run(shim=False)
            if again.returncode != 0 or bank_entries(runner.bank) != reference:
                out["problems"].append("two runs with no fault left other banks (values not "
                                       "deterministic)")
            out["calls"] = len(calls)
            out["calls_by_kind"] = {k: calls.count(k) for k in sorted(set(calls))}
            for nth in range(1, len(calls) + 1):
                fitting = [e for e in ERRNOS if e != "short" or calls[nth - 1] == "write"]
                names = fitting if a.every_errno else [fitting[(nth - 1) % len(fitting)]]
                persist = a.persist == "yes" or (a.persist == "alternate" and nth % 2 == 0)
                for errno in names:
                    # A signal storm or writes that stay short are not a disk that stays full
                    # (EINTR made again for ever): those faults come once.
                    stays = persist and errno not in RETRIED
                    out["faults"][errno] = out["faults"].get(errno, 0) + 1
                    out["persistent_faults"] += stays
                    check_fault(runner, reference, nth, errno, out, stays)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    out["problem_count"] = len(out["problems"])
    out["problems"] = out["problems"][:20]
    out["seconds"] = round(time.monotonic() - start, 1)
    print(json.dumps(out, indent=2))
    return 1 if out["problem_count"] else 0


if __name__ == "__main__":
    sys.exit(main())
