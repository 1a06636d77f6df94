#!/usr/bin/env python3
"""95 % percentile-bootstrap intervals over seeds for bench/tuning_cost's output.

    scripts/bootstrap_ci.py [--field F] [--resamples N] [--seed S] [--markdown]
                            [--diff A,B] [--models M,...] [--budgets N,...] FILE.json ...

Reads one or more JSON files printed by `bench/tuning_cost` (rows with a `per_seed` list; the
rows of several files are merged, a repeated (model, search, budget) row is an error) and
prints, per model, search and budget, the mean over the seeds of FIELD
(`model_fraction_of_oracle` by default) with its 95 % percentile-bootstrap interval: the seeds
are resampled with replacement RESAMPLES times (10,000) from a generator seeded with SEED
(2024), and the interval is the 2.5th and 97.5th percentile of the resampled means.

--diff A,B adds, per model and budget, the difference mean(A) - mean(B) with its interval,
the two policies' seeds resampled independently (their seeds are not matched pairs; with
--paired, seed by seed: for two policies whose runs share a prefix, e.g. annealing and
annealing-evolutionary, which is annealing for its first 48 evaluations), and the
same over all the models together (the mean over the models of the differences; each model's
seeds are resampled on their own, as aoe-bench's stratified summary does: the interval is
over seeds, the models are fixed).

Prints JSON, or with --markdown a table per model. Needs numpy (Debian: python3-numpy).
"""
import argparse
import json
import sys

import numpy as np


def load(paths, field):
    rows = {}
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"bootstrap_ci.py: {path}: {e}")
        for i, r in enumerate(doc.get("results", [])):
            if "per_seed" not in r:
                sys.exit(f"bootstrap_ci.py: {path}: /results/{i} has no per_seed "
                         "(a tuning_cost older than per-seed output)")
            key = (r["model"], r["search"], int(r["evaluations_per_operator"]))
            if key in rows:
                sys.exit(f"bootstrap_ci.py: {path}: /results/{i}: {key} appears twice")
            values = [s[field] for s in r["per_seed"]]
            if not values:
                sys.exit(f"bootstrap_ci.py: {path}: /results/{i}/per_seed is empty")
            rows[key] = np.asarray(values, dtype=float)
    return rows


def resampled_means(values, resamples, rng):
    idx = rng.integers(0, len(values), size=(resamples, len(values)))
    return values[idx].mean(axis=1)


def interval(replicates):
    lo, hi = np.percentile(replicates, [2.5, 97.5])
    return [float(lo), float(hi)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--field", default="model_fraction_of_oracle")
    ap.add_argument("--resamples", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--diff", help="A,B: mean(A) - mean(B) per model and budget")
    ap.add_argument("--paired", action="store_true",
                    help="--diff: resample the seeds of A and B together (same seed numbers)")
    ap.add_argument("--models", help="only these models (comma-separated), in this order")
    ap.add_argument("--budgets", help="only these budgets (comma-separated)")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    if args.resamples < 100:
        sys.exit("bootstrap_ci.py: --resamples: at least 100")
    rows = load(args.files, args.field)
    rng = np.random.default_rng(args.seed)
    models = args.models.split(",") if args.models else list(dict.fromkeys(k[0] for k in rows))
    budgets = sorted({k[2] for k in rows})
    if args.budgets:
        budgets = [int(b) for b in args.budgets.split(",")]
    searches = list(dict.fromkeys(k[1] for k in rows))
    # Replicates are drawn in a fixed order (model, search, budget), so the figures depend only
    # on the inputs, the seed and the number of resamples.
    reps = {}
    out = {"field": args.field, "resamples": args.resamples, "seed": args.seed,
           "level": 0.95, "method": "percentile bootstrap over seeds", "rows": []}
    for m in models:
        for s in searches:
            for b in budgets:
                v = rows.get((m, s, b))
                if v is None:
                    continue
                reps[(m, s, b)] = resampled_means(v, args.resamples, rng)
                out["rows"].append({"model": m, "search": s, "budget": b, "seeds": len(v),
                                    "mean": float(v.mean()),
                                    "ci95": interval(reps[(m, s, b)])})
    if args.diff:
        names = args.diff.split(",")
        if len(names) != 2:
            sys.exit(f"bootstrap_ci.py: --diff: two policies A,B, got '{args.diff}'")
        a, b_ = names
        for name in names:
            if name not in searches:
                sys.exit(f"bootstrap_ci.py: --diff: no rows of '{name}' in the input "
                         f"(it has {', '.join(searches)})")
        out["diff"] = {"a": a, "b": b_, "paired": args.paired, "rows": []}
        for bud in budgets:
            per_model = []
            for m in models:
                if (m, a, bud) not in reps or (m, b_, bud) not in reps:
                    continue
                if args.paired:
                    va, vb = rows[(m, a, bud)], rows[(m, b_, bud)]
                    if len(va) != len(vb):
                        sys.exit(f"bootstrap_ci.py: --paired: {m} at {bud}: {len(va)} seeds "
                                 f"of {a} against {len(vb)} of {b_}")
                    d = resampled_means(va - vb, args.resamples, rng)
                else:
                    d = reps[(m, a, bud)] - reps[(m, b_, bud)]
                point = float(rows[(m, a, bud)].mean() - rows[(m, b_, bud)].mean())
                per_model.append((point, d))
                out["diff"]["rows"].append({"model": m, "budget": bud, "diff": point,
                                            "ci95": interval(d)})
            if per_model:
                point = float(np.mean([p for p, _ in per_model]))
                d = np.mean([r for _, r in per_model], axis=0)
                out["diff"]["rows"].append({"model": "all", "models": len(per_model),
                                            "budget": bud, "diff": point,
                                            "ci95": interval(d)})
    if not args.markdown:
        print(json.dumps(out, indent=1))
        return
    for m in models:
        print(f"\n**{m}** ({args.field}, mean [95 % CI] over seeds)\n")
        print("| search | seeds | " + " | ".join(str(b) for b in budgets) + " |")
        print("|---|---|" + "---|" * len(budgets))
        for s in searches:
            cells = {r["budget"]: r for r in out["rows"] if r["model"] == m and r["search"] == s}
            if not cells:
                continue
            n = max(r["seeds"] for r in cells.values())
            line = [f"{cells[b]['mean']:.3f} [{cells[b]['ci95'][0]:.3f}, {cells[b]['ci95'][1]:.3f}]"
                    if b in cells else "—" for b in budgets]
            print(f"| {s} | {n} | " + " | ".join(line) + " |")
    if args.diff:
        print(f"\n**{a} − {b_}** (mean difference [95 % CI])\n")
        print("| model | " + " | ".join(str(b) for b in budgets) + " |")
        print("|---|" + "---|" * len(budgets))
        for m in models + ["all"]:
            cells = {r["budget"]: r for r in out["diff"]["rows"] if r["model"] == m}
            if not cells:
                continue
            line = [f"{cells[b]['diff']:+.3f} [{cells[b]['ci95'][0]:+.3f}, {cells[b]['ci95'][1]:+.3f}]"
                    if b in cells else "—" for b in budgets]
            print(f"| {m} | " + " | ".join(line) + " |")


if __name__ == "__main__":
    main()
