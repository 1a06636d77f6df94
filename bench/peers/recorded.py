"""What replaying a recorded configuration charges, the same for every tuner of bench/peers/run
(its single- and two-objective runs alike)."""


def charged_seconds(entry):
    """The device seconds an evaluation of a recorded configuration costs, as aoe-bench's
    replay charges it (docs/research.md, "Time charged"): compile + verification + benchmark
    time, the benchmark time being the recorded benchmark_time, else the sum of the recorded
    runs, else time x 7 (Kernel Tuner's default iterations)."""
    def number(x):
        return float(x) if isinstance(x, (int, float)) else 0.0
    if isinstance(entry.get("benchmark_time"), (int, float)):
        bench = entry["benchmark_time"]
    elif isinstance(entry.get("times"), list):
        bench = sum(number(t) for t in entry["times"])
    else:
        bench = number(entry.get("time")) * 7
    return (number(entry.get("compile_time")) + number(entry.get("verification_time")) +
            bench) / 1000.0
