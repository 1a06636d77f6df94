"""The methodology score P (Willemsen et al., FGCS 2024) of each tuner, computed by the
autotuning-methodology package's own code: its SearchspaceStatistics reads each space as a T4
full-search-space file, its write_results turns each tuner's repetitions (T4 results) into the
arrays it caches, its StochasticOptimizationAlgorithm and RandomSearchCalculatedBaseline make
the curves, and its get_strategies_aggregated_performance standardises them against random
search over time and averages over the spaces; P is the mean of that curve, as its
get_strategy_scores reports. Only the assembly that its experiment-file driver would do
(T1 kernel files, a run folder per group) is done here, with its default settings
(experiments_defaults.json: cutoff percentiles 0.01 and 0.95, confidence 0.95; resolution
1e4 steps of time).

Time per evaluation, for every tuner alike: the device time the recording charges (compile,
verification and benchmark time of the configuration, as Kernel Tuner's simulation mode and
aoe-bench charge it) plus the tuner's own search time, measured (its wall seconds over its
unique evaluations)."""

import json
from pathlib import Path

TIME_KEYS = ["runtimes", "search_algorithm"]
CUTOFF_START, CUTOFF, CONFIDENCE, RESOLUTION = 0.01, 0.95, 0.95, 10000


def _t4(results):
    return {"schema_version": "1.0.0", "metadata": {"timeunit": "seconds"}, "results": results}


def _entry(config, value, cost, search_seconds):
    return {"configuration": config, "invalidity": "correct" if value is not None else "runtime",
            "objectives": ["time"],
            "measurements": [{"name": "time", "unit": "ms",
                              "value": value if value is not None else "RuntimeFailedConfig"}],
            "times": {"runtimes": cost, "search_algorithm": search_seconds}}


def score_experiment(spaces, runs, tuners, budget, folder, seed=2024):
    """([{"tuner", "P", "P_std"}], {tuner: why it has no P}) over `spaces` (Space objects of
    bench/peers/run) from `runs` (dicts with space, tuner, values, costs, seconds). The
    package draws from NumPy's global generator (its baselines, its prediction intervals):
    seeded with `seed`, the same runs give the same scores."""
    import warnings
    import numpy as np
    from autotuning_methodology.baseline import RandomSearchCalculatedBaseline
    from autotuning_methodology.caching import ResultsDescription
    from autotuning_methodology.curves import StochasticOptimizationAlgorithm
    from autotuning_methodology.report_experiments import get_strategies_aggregated_performance
    from autotuning_methodology.runner import write_results
    from autotuning_methodology.searchspace_statistics import SearchspaceStatistics

    np.random.seed(seed % 2**32)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    aggregation, unscored = [], {}
    for space in spaces:
        full = folder / f"{space.name}_T4.json"
        entries = [_entry({}, value, space.cost(key), 0.0) for key, value in space.values.items()]
        full.write_text(json.dumps(_t4(entries)))
        stats = SearchspaceStatistics(application_name=space.name, device_name="recorded",
                                      minimization=True, objective_time_keys=TIME_KEYS,
                                      objective_performance_keys=["time"],
                                      full_search_space_file_path=full, full_validate=False)
        curves = []
        for tuner in tuners:
            description = ResultsDescription(
                run_folder=folder / "run" / tuner.replace(":", "_"), application_name=space.name,
                device_name="recorded", group_name=tuner.replace(":", "_"),
                group_display_name=tuner, stochastic=True, objective_time_keys=TIME_KEYS,
                objective_performance_keys=["time"], minimization=True)
            repeated = []
            for run in runs:
                if run["space"] != space.name or run["tuner"] != tuner:
                    continue
                per_evaluation = run["seconds"] / max(len(run["values"]), 1)
                repeated.append([_entry({}, v, c, per_evaluation)
                                 for v, c in zip(run["values"][:budget], run["costs"][:budget])])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                write_results(repeated, description, compressed=False)
            curves.append(StochasticOptimizationAlgorithm(description))
        start_fevals, end_fevals, start_time, end_time = \
            stats.cutoff_point_fevals_time_start_end(CUTOFF_START, CUTOFF)
        time_range = np.linspace(start=start_time, stop=end_time, num=RESOLUTION)
        fevals_range = np.arange(start=start_fevals, stop=end_fevals + 1)
        # The package refuses a curve (ValueError) when a repetition has fewer than two valid
        # evaluations inside the space's time range, e.g. a strategy that stops after a few
        # evaluations (Kernel Tuner's minimize) or finds nothing valid: such a tuner gets no P
        # (a mean over fewer spaces would not compare), and says why.
        for tuner, curve in zip(tuners, curves):
            if tuner in unscored:
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    curve.get_curve_over_time(time_range,
                                              dist=stats.objective_performances_total_sorted,
                                              confidence_level=CONFIDENCE)
            except ValueError as e:
                unscored[tuner] = _refusal(e, space.name, start_time, end_time)
        aggregation.append((RandomSearchCalculatedBaseline(stats), curves, stats, time_range,
                            fevals_range))
    scored = [t for t in tuners if t not in unscored]
    if not scored:
        return [], unscored
    keep = [i for i, t in enumerate(tuners) if t not in unscored]
    aggregation = [(baseline, [curves[i] for i in keep], stats, time_range, fevals_range)
                   for baseline, curves, stats, time_range, fevals_range in aggregation]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        performance, _, _, _ = get_strategies_aggregated_performance(aggregation, CONFIDENCE)
    return [{"tuner": tuner, "P": round(float(np.mean(p)), 3), "P_std": round(float(np.std(p)), 3)}
            for tuner, p in zip(scored, performance)], unscored


def _refusal(error, space, start, end):
    """Why the package refused a tuner's curve on `space`, in one line (its message holds the
    whole array of times)."""
    args = error.args
    if len(args) >= 2 and str(args[0]).startswith("Not enough overlap"):
        try:
            short = sum(int(c) <= 1 for c in args[1])
            total = len(args[1])
            return (f"{space}: {short} of {total} repetitions have fewer than two valid "
                    f"evaluations in the time range the package scores ({start:.1f} to "
                    f"{end:.1f} s); autotuning-methodology: 'Not enough overlap in time range "
                    "and time values'")
        except (TypeError, ValueError):
            pass
    return f"{space}: autotuning-methodology: {str(args[0] if args else error)[:200]}"
