#!/usr/bin/env python3
"""The methodology score P (Willemsen et al., FGCS 2024) of an experiment of ours, by the
autotuning-methodology package's own code, from the files `aoe-bench --methodology DIR` (or
aoe::experiment::write_methodology_files) wrote: DIR/<input>/search_space_T4.json and
DIR/<input>/<strategy>/repetition_<r>_T4.json (docs/research.md#scoring-with-autotuning-methodology).

  bench/peers/.venv/bin/python bench/peers/score_methodology.py DIR [--budget N] [--json OUT]

Run it with the peers' environment's Python (bench/peers/run makes it once). Prints, per
strategy, P and its spread over the inputs as bench/peers/methodology.py computes them (the
same calls, the same defaults), and the strategies the package refused, with why.
Exit codes: 0 done, 2 bad usage or DIR not in that layout."""

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
import methodology  # noqa: E402  (bench/peers/methodology.py)


def fail(message):
    print(f"score_methodology.py: {message}", file=sys.stderr)
    sys.exit(2)


def value_of(entry):
    """The time of a T4 result, or None when it failed."""
    if entry.get("invalidity") != "correct":
        return None
    v = entry["measurements"][0]["value"]
    return float(v) if isinstance(v, (int, float)) else None


class Input:
    """One input's full search space: each configuration's value (None: failed) and cost."""

    def __init__(self, folder):
        self.name = folder.name
        full = json.loads((folder / "search_space_T4.json").read_text())["results"]
        self.values, self.costs = {}, {}
        for i, entry in enumerate(full):
            key = json.dumps(entry["configuration"], sort_keys=True) or str(i)
            self.values[key] = value_of(entry)
            self.costs[key] = float(entry["times"]["runtimes"])

    def cost(self, key):
        return self.costs[key]


def read(directory):
    """(inputs, runs, tuners): every input folder of `directory` and its strategies' runs."""
    inputs, runs, tuners = [], [], []
    for folder in sorted(p for p in directory.iterdir() if p.is_dir()):
        if not (folder / "search_space_T4.json").is_file():
            fail(f"{folder}: no search_space_T4.json (not written by aoe-bench --methodology?)")
        space = Input(folder)
        inputs.append(space)
        for strategy in sorted(p for p in folder.iterdir() if p.is_dir()):
            if strategy.name not in tuners:
                tuners.append(strategy.name)
            files = sorted(strategy.glob("repetition_*_T4.json"),
                           key=lambda p: int(p.name.split("_")[1]))
            for f in files:
                results = json.loads(f.read_text())["results"]
                seconds = sum(float(e["times"]["search_algorithm"]) for e in results)
                runs.append({"space": space.name, "tuner": strategy.name,
                             "values": [value_of(e) for e in results],
                             "costs": [float(e["times"]["runtimes"]) for e in results],
                             "seconds": seconds})
    if not inputs:
        fail(f"{directory}: no input folders")
    return inputs, runs, tuners


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", help="what aoe-bench --methodology wrote")
    parser.add_argument("--budget", type=int, help="evaluations per repetition scored "
                        "(default: the longest repetition)")
    parser.add_argument("--json", help="also write the scores here")
    args = parser.parse_args()
    directory = Path(args.directory)
    if not directory.is_dir():
        fail(f"{directory}: not a directory")
    inputs, runs, tuners = read(directory)
    budget = args.budget or max(len(r["values"]) for r in runs)
    with tempfile.TemporaryDirectory(prefix="aoe-methodology-") as work:
        scores, unscored = methodology.score_experiment(inputs, runs, tuners, budget, work)
    for s in scores:
        print(f"{s['tuner']:<24} P {s['P']:7.3f}  (std over inputs {s['P_std']:.3f})")
    for tuner, why in unscored.items():
        print(f"{tuner:<24} no P: {why}")
    if args.json:
        Path(args.json).write_text(json.dumps({"scores": scores, "unscored": unscored},
                                              indent=1) + "\n")


if __name__ == "__main__":
    main()
