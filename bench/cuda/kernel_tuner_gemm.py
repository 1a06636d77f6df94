#!/usr/bin/env python3
"""Tune OpenAOE's CUDA GEMM with Kernel Tuner, for a same-GPU, same-run comparison.

The C++ bench writes ``kernel_tuner_spec.json`` (kernel source, tunable
parameters, the exact list of valid configurations, budgets, strategies); this
program runs every requested Kernel Tuner strategy once with
``max_fevals = max(budgets)`` and reports, per strategy and budget, the best
GFLOP/s among the first ``budget`` distinct configurations Kernel Tuner
evaluated, in the row format the C++ bench merges with its own rows.

Run on the GPU machine (no package index there) after
``scripts/fetch-gpu-wheels.sh`` on a machine with PyPI access::

    python3 -m pip install --no-index --no-deps --find-links .whl \
        --target /tmp/site -r .whl/requirements.txt
    PYTHONPATH=/tmp/site python3 bench/cuda/kernel_tuner_gemm.py \
        --spec OUT/kernel_tuner_spec.json --json OUT/kernel_tuner.json

Kernel Tuner API facts this relies on (checked against kernel_tuner 1.5.0):

* ``tune_kernel(kernel_name, kernel_source, problem_size, arguments,
  tune_params, grid_div_x=, grid_div_y=, restrictions=, answer=, atol=,
  verify=, lang="cupy", compiler_options=, iterations=, block_size_names=,
  quiet=, metrics=, strategy=, strategy_options=, simulation_mode=, cache=,
  observers=, seed=)`` returns ``(results, env)``; ``results`` is the
  strategy's evaluation trace (``CostFunc.results``) in evaluation order,
  revisits included, restriction-violating points excluded.
* ``restrictions`` may be a callable taking a dict {param: value} and
  returning bool (``Searchspace`` wraps it in a python-constraint
  FunctionConstraint and evaluates it over the Cartesian product).
* ``strategy_options``: ``max_fevals`` and ``time_limit`` (seconds, checked
  by ``util.TuningBudget``; the search-space construction time is deducted
  first).  The budget counts every runner evaluation, revisits included.
  Strategies take no seed option; they draw from the global ``random`` and
  ``numpy.random`` generators, which are seeded here before every strategy
  (``tune_kernel(seed=)`` is only read by nsga2/nsga3).
* Each result dict holds the tunable parameters, ``time`` (ms, mean of
  ``iterations`` runs), ``compile_time``/``verification_time``/
  ``benchmark_time`` (ms), ``timestamp`` (``str(datetime.now(timezone.utc))``
  when the evaluation finished) and ``__error__`` (an ErrorConfig) for
  invalid/compile-failed/launch-failed configurations.
* A ``verify`` function returning False makes Kernel Tuner raise and abort
  the whole run, so verification here never returns False: the outcome is
  recorded and attached to the result through a ``BenchmarkObserver``
  (``get_results()`` is merged into the result dict of the same
  compile-verify-benchmark call), and a wrong result counts as a failed
  evaluation in the report.
* ``simulation_mode=True`` with ``cache=FILE`` replays a Kernel Tuner cache
  file without a GPU (used by test_kernel_tuner_gemm.sh).
* LLM-generated strategies (module docstring "Algorithm generated as part of
  the paper 'Automated Algorithm Design For Auto-Tuning Optimizers'"):
  ``hybrid_vndx`` and ``adaptive_tabu_greywolf``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import math
import os
import random
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_BAD_INPUT = 2
EXIT_NO_GPU = 3

#: The strongest LLM-generated strategy shipped with Kernel Tuner 1.5.0 (see
#: the report in --list-strategies); appended to the spec's strategies.
LLM_STRATEGY = "hybrid_vndx"
#: Used when the spec has no "strategies" field.
DEFAULT_STRATEGIES = ["random_sample", "genetic_algorithm", "bayes_opt", LLM_STRATEGY]
#: Kernel arguments: (int32 M, int32 N, int32 K, float* A, float* B, float* C).
NUM_KERNEL_ARGS = 6
#: Kernel Tuner's default max threads per block when no device is queried.
DEFAULT_MAX_THREADS = 1024
#: Marker in the module docstring of LLM-generated strategies.
LLM_MARKER = "Algorithm generated as part of the paper"


class InputError(Exception):
    """Bad command line or specification input (exit code 2)."""


class NoGpuError(Exception):
    """CuPy or a CUDA device is missing (exit code 3)."""


@dataclass
class Spec:
    """The validated contents of kernel_tuner_spec.json."""

    path: Path
    kernel_source: Path
    kernel_name: str
    compiler_options: list[str]
    m: int
    n: int
    k: int
    tune_params: dict[str, list[Any]]
    configurations: list[tuple[Any, ...]]
    block_size_names: list[str]
    grid_div_x: list[str]
    grid_div_y: list[str]
    seed: int
    budgets: list[int]
    strategies: list[str]
    atol: float
    rtol: float = 1e-5
    duplicates: int = 0

    @property
    def flops(self) -> float:
        """Floating-point operations of one GEMM (2*M*N*K)."""
        return 2.0 * self.m * self.n * self.k


@dataclass
class StrategyRun:
    """What one Kernel Tuner strategy run produced."""

    strategy: str
    results: list[dict[str, Any]] = field(default_factory=list)
    wall_seconds: float = 0.0
    start: datetime | None = None
    error: str | None = None


# --------------------------------------------------------------------------
# Specification
# --------------------------------------------------------------------------


def _field(data: dict[str, Any], name: str, where: Path, required: bool = True) -> Any:
    """Return data[name], raising InputError naming the file and field if absent."""
    if name not in data:
        if required:
            raise InputError(f"{where}: missing field '{name}'")
        return None
    return data[name]


def _positive_int(value: Any, name: str, where: Path) -> int:
    """Check that value is a positive integer (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InputError(f"{where}: field '{name}' must be a positive integer, got {value!r}")
    return value


def _name_list(value: Any, name: str, where: Path, params: dict[str, list[Any]]) -> list[str]:
    """Check a list of tunable-parameter names."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{where}: field '{name}' must be a list of parameter names")
    for v in value:
        if v not in params:
            raise InputError(f"{where}: field '{name}' names '{v}', which is not in 'tune_params'")
    return list(value)


def load_spec(path: Path, available_strategies: list[str]) -> Spec:
    """Read and validate the specification; raise InputError on any problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"{path}: cannot read the spec: {e.strerror or e}") from e
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not valid JSON: {e}") from e
    if not isinstance(data, dict):
        raise InputError(f"{path}: the spec must be a JSON object")

    source_rel = _field(data, "kernel_source", path)
    if not isinstance(source_rel, str) or not source_rel:
        raise InputError(f"{path}: field 'kernel_source' must be a non-empty string")
    source = (path.parent / source_rel).resolve()
    if not source.is_file():
        raise InputError(f"{path}: field 'kernel_source': file {source} does not exist")

    kernel_name = _field(data, "kernel_name", path)
    if not isinstance(kernel_name, str) or not kernel_name.isidentifier():
        raise InputError(f"{path}: field 'kernel_name' must be a C identifier, got {kernel_name!r}")

    options = _field(data, "compiler_options", path, required=False) or []
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise InputError(f"{path}: field 'compiler_options' must be a list of strings")

    m, n, k = (_positive_int(_field(data, d, path), d, path) for d in ("m", "n", "k"))

    params = _field(data, "tune_params", path)
    if not isinstance(params, dict) or not params:
        raise InputError(f"{path}: field 'tune_params' must be a non-empty object")
    tune_params: dict[str, list[Any]] = {}
    for name, values in params.items():
        if not name.isidentifier():
            raise InputError(f"{path}: 'tune_params' key {name!r} is not a C identifier")
        if not isinstance(values, list) or not values:
            raise InputError(f"{path}: 'tune_params.{name}' must be a non-empty list")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise InputError(f"{path}: 'tune_params.{name}' holds {v!r}; only numbers are supported")
        if len(set(values)) != len(values):
            raise InputError(f"{path}: 'tune_params.{name}' has duplicate values")
        tune_params[name] = list(values)

    raw_configs = _field(data, "configurations", path)
    if not isinstance(raw_configs, list) or not raw_configs:
        raise InputError(f"{path}: field 'configurations' must be a non-empty list")
    names = list(tune_params)
    value_sets = [set(tune_params[p]) for p in names]
    configs: list[tuple[Any, ...]] = []
    seen: set[tuple[Any, ...]] = set()
    duplicates = 0
    for i, c in enumerate(raw_configs):
        if not isinstance(c, list) or len(c) != len(names):
            raise InputError(
                f"{path}: 'configurations[{i}]' must be a list of {len(names)} values "
                f"(one per tune_params entry, in order {names})"
            )
        for j, v in enumerate(c):
            if isinstance(v, bool) or v not in value_sets[j]:
                raise InputError(
                    f"{path}: 'configurations[{i}][{j}]' = {v!r} is not a value of 'tune_params.{names[j]}'"
                )
        t = tuple(c)
        if t in seen:
            duplicates += 1
            continue
        seen.add(t)
        configs.append(t)

    block = _name_list(_field(data, "block_size_names", path), "block_size_names", path, tune_params)
    if not 1 <= len(block) <= 3:
        raise InputError(f"{path}: field 'block_size_names' must name 1 to 3 parameters")
    grid_x = _name_list(_field(data, "grid_div_x", path), "grid_div_x", path, tune_params)
    grid_y = _name_list(_field(data, "grid_div_y", path), "grid_div_y", path, tune_params)

    seed = _field(data, "seed", path)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"{path}: field 'seed' must be a non-negative integer, got {seed!r}")

    budgets = _field(data, "budgets", path)
    if not isinstance(budgets, list) or not budgets:
        raise InputError(f"{path}: field 'budgets' must be a non-empty list of positive integers")
    budgets = sorted({_positive_int(b, "budgets", path) for b in budgets})

    strategies = _field(data, "strategies", path, required=False)
    if strategies is None:
        strategies = list(DEFAULT_STRATEGIES)
    if not isinstance(strategies, list) or not strategies or not all(isinstance(s, str) for s in strategies):
        raise InputError(f"{path}: field 'strategies' must be a non-empty list of strategy names")
    for s in strategies:
        if s not in available_strategies:
            raise InputError(
                f"{path}: field 'strategies' names unknown strategy '{s}'; "
                f"available: {', '.join(available_strategies)}"
            )

    tolerances = {}
    for name, required in (("atol", True), ("rtol", False)):
        v = _field(data, name, path, required=required)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise InputError(f"{path}: field '{name}' must be a non-negative number, got {v!r}")
        tolerances[name] = float(v)

    return Spec(
        path=path,
        kernel_source=source,
        kernel_name=kernel_name,
        compiler_options=list(options),
        m=m,
        n=n,
        k=k,
        tune_params=tune_params,
        configurations=configs,
        block_size_names=block,
        grid_div_x=grid_x,
        grid_div_y=grid_y,
        seed=seed,
        budgets=budgets,
        strategies=list(dict.fromkeys(strategies)),
        duplicates=duplicates,
        **tolerances,
    )


def make_restriction(spec: Spec) -> Callable[[dict[str, Any]], bool]:
    """Restriction callable: True exactly for the spec's configurations."""
    names = list(spec.tune_params)
    allowed = frozenset(spec.configurations)

    def in_spec(p: dict[str, Any]) -> bool:
        return tuple(p[name] for name in names) in allowed

    return in_spec


# --------------------------------------------------------------------------
# Kernel Tuner introspection
# --------------------------------------------------------------------------


def import_kernel_tuner() -> Any:
    """Import kernel_tuner or raise a clear error naming the install command."""
    try:
        return importlib.import_module("kernel_tuner")
    except ImportError as e:
        raise RuntimeError(
            f"cannot import kernel_tuner ({e}); install the wheels from scripts/fetch-gpu-wheels.sh: "
            "python3 -m pip install --no-index --no-deps --find-links .whl --target /tmp/site "
            "-r .whl/requirements.txt && export PYTHONPATH=/tmp/site"
        ) from e


def kernel_tuner_version() -> str:
    """The installed Kernel Tuner version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kernel_tuner")
    except PackageNotFoundError:
        return "unknown"


def available_strategies() -> list[str]:
    """Names of every strategy the installed Kernel Tuner knows."""
    from kernel_tuner.interface import strategy_map

    return list(strategy_map)


def describe_strategy(name: str) -> tuple[bool, str, bool]:
    """(importable, first docstring line or import error, LLM-generated) for a strategy."""
    from kernel_tuner.interface import _STRATEGY_IMPORTS  # name -> module path

    try:
        module = importlib.import_module(_STRATEGY_IMPORTS[name])
    except Exception as e:  # noqa: BLE001 - any import failure means "unavailable"
        return False, f"unavailable: {type(e).__name__}: {e}", False
    doc = (module.__doc__ or "").strip()
    summary = doc.splitlines()[0] if doc else ""
    if name == "bayes_opt" and not getattr(module, "bayes_opt_present", True):
        return False, "unavailable: scikit-learn is not installed", False
    return True, summary, LLM_MARKER in doc


def list_strategies() -> None:
    """Print every strategy with its availability and whether an LLM generated it."""
    print(f"Kernel Tuner {kernel_tuner_version()} strategies:")
    for name in available_strategies():
        ok, summary, llm = describe_strategy(name)
        tags = []
        if llm:
            tags.append("LLM-generated")
        if name == LLM_STRATEGY:
            tags.append("default LLM strategy")
        tag = f" [{', '.join(tags)}]" if tags else ""
        print(f"  {name:24s} {'ok ' if ok else 'n/a'} {summary}{tag}")


# --------------------------------------------------------------------------
# GPU side: data, reference, verification
# --------------------------------------------------------------------------


def import_cupy() -> Any:
    """Import CuPy with TF32 disabled and check a CUDA device exists."""
    # CuPy's matmul uses TF32 only when CUPY_TF32=1; force it off, and ask
    # cuBLAS not to substitute TF32 either.  Both are read when CuPy/cuBLAS
    # load, so they are set before the import.
    os.environ["CUPY_TF32"] = "0"
    os.environ["NVIDIA_TF32_OVERRIDE"] = "0"
    try:
        import cupy as cp  # noqa: PLC0415
    except ImportError as e:
        raise NoGpuError(f"cannot import cupy ({e}); this program needs CuPy and a CUDA GPU") from e
    try:
        count = cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001 - CUDARuntimeError without a driver
        raise NoGpuError(f"no usable CUDA device: {e}") from e
    if count < 1:
        raise NoGpuError("no CUDA device found")
    return cp


def device_name(cp: Any, device: int) -> str:
    """The CUDA device's name as the driver reports it."""
    name = cp.cuda.runtime.getDeviceProperties(device)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def make_inputs(spec: Spec) -> tuple[Any, Any]:
    """A (MxK) and B (KxN), float32, uniform in [-1, 1), from numpy's generator seeded by the spec."""
    import numpy as np

    rng = np.random.default_rng(spec.seed)
    a = rng.uniform(-1.0, 1.0, size=(spec.m, spec.k)).astype(np.float32)
    b = rng.uniform(-1.0, 1.0, size=(spec.k, spec.n)).astype(np.float32)
    return a, b


def reference_gemm(cp: Any, spec: Spec, a: Any, b: Any) -> Any:
    """C = A @ B once on the GPU with CuPy in float32 (TF32 off), checked against float64 rows."""
    import numpy as np

    c = cp.matmul(cp.asarray(a), cp.asarray(b))
    cp.cuda.Device().synchronize()
    # Guard against a reference that is itself off (e.g. TF32 sneaking in):
    # recompute a few rows in float64 on the host.
    rows = np.unique(np.linspace(0, spec.m - 1, num=min(4, spec.m)).astype(np.int64))
    exact = a[rows].astype(np.float64) @ b.astype(np.float64)
    got = cp.asnumpy(c[cp.asarray(rows)]).astype(np.float64)
    err = np.abs(got - exact)
    limit = spec.atol + spec.rtol * np.abs(exact)
    if not np.all(err <= limit):
        raise RuntimeError(
            f"the CuPy reference GEMM differs from a float64 check by up to {err.max():.3g} "
            f"(atol {spec.atol}, rtol {spec.rtol}); is TF32 enabled?"
        )
    return c


class VerificationRecorder:
    """Kernel Tuner ``verify`` function plus observer that carries its verdict.

    ``verify`` always returns True (False would abort Kernel Tuner's run); the
    verdict is stored and handed to the result of the same evaluation by
    ``observer().get_results()`` as ``aoe_verified`` (1 correct, 0 wrong).
    """

    def __init__(self, cp: Any, reference: Any, atol: float, rtol: float) -> None:
        """Compare the output argument against reference with |x-ref| <= atol + rtol*|ref|."""
        self.cp = cp
        self.reference = reference.ravel()
        self.rtol = rtol
        self.default_atol = atol
        self.last: int | None = None

    def verify(self, answer: list[Any], result_host: list[Any], atol: float | None = None) -> bool:
        """Record whether the kernel's C matches the reference; always return True."""
        cp = self.cp
        tol = self.default_atol if atol is None else atol
        out = result_host[NUM_KERNEL_ARGS - 1]
        if out is None:
            self.last = 0
            return True
        got = cp.asarray(out).ravel()
        ok = got.shape == self.reference.shape and bool(
            cp.all(cp.abs(got - self.reference) <= tol + self.rtol * cp.abs(self.reference))
        )
        self.last = 1 if ok else 0
        return True

    def observer(self) -> Any:
        """A Kernel Tuner BenchmarkObserver reporting the last verdict."""
        from kernel_tuner.observers import BenchmarkObserver

        recorder = self

        class _VerifiedObserver(BenchmarkObserver):
            def get_results(self) -> dict[str, int]:
                verdict = recorder.last
                recorder.last = None
                return {"aoe_verified": 1 if verdict is None else verdict}

        return _VerifiedObserver()


# --------------------------------------------------------------------------
# Tuning and bookkeeping
# --------------------------------------------------------------------------


def gflops_of(spec: Spec, time_ms: float) -> float:
    """GFLOP/s of one GEMM that took time_ms milliseconds."""
    return spec.flops / (time_ms * 1e-3) * 1e-9


def run_strategy(
    spec: Spec,
    strategy: str,
    arguments: list[Any],
    common: dict[str, Any],
    time_limit: float,
    recorder: VerificationRecorder | None,
) -> StrategyRun:
    """Run one strategy with max_fevals = max(budgets); exceptions become run.error."""
    import numpy as np
    from kernel_tuner import tune_kernel

    run = StrategyRun(strategy=strategy)
    random.seed(spec.seed)
    np.random.seed(spec.seed % (2**32))
    options = {"max_fevals": max(spec.budgets), "time_limit": time_limit}
    kwargs = dict(common)
    # Kernel Tuner appends default names to block_size_names in place: pass
    # fresh copies of every list so runs do not see each other's edits.
    for key in ("block_size_names", "grid_div_x", "grid_div_y", "compiler_options"):
        kwargs[key] = list(kwargs[key])
    if recorder is not None:
        kwargs["observers"] = [recorder.observer()]
    run.start = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    try:
        results, _env = tune_kernel(
            spec.kernel_name,
            str(spec.kernel_source),
            (spec.n, spec.m),
            arguments,
            dict(spec.tune_params),
            strategy=strategy,
            strategy_options=options,
            **kwargs,
        )
        run.results = list(results or [])
    except Exception as e:  # noqa: BLE001 - reported per strategy, the others go on
        run.error = f"{type(e).__name__}: {e}"
    run.wall_seconds = time.perf_counter() - t0
    return run


def _failed(result: dict[str, Any]) -> bool:
    """True if the evaluation produced no usable, verified time."""
    if "__error__" in result or result.get("aoe_verified", 1) == 0:
        return True
    t = result.get("time")
    return not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t) or t <= 0


def _timestamp(result: dict[str, Any]) -> datetime | None:
    """The evaluation's completion time, if Kernel Tuner recorded one."""
    ts = result.get("timestamp")
    if not isinstance(ts, str):
        return None
    try:
        parsed = datetime.fromisoformat(ts)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def summarize(spec: Spec, run: StrategyRun) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per-budget rows plus a per-run detail record.

    Only the first evaluation of each distinct configuration counts (failed
    ones included).  wall_seconds up to an evaluation comes from Kernel
    Tuner's per-result timestamps minus the run's start when all of them
    fall inside the run; otherwise the run's wall time is scaled by the
    fraction of distinct evaluations done.
    """
    names = list(spec.tune_params)
    unique: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for r in run.results:
        key = tuple(r.get(p) for p in names)
        if key in seen:
            continue
        seen.add(key)
        unique.append(r)

    end = run.start.timestamp() + run.wall_seconds + 1.0 if run.start else 0.0
    stamps = [_timestamp(r) for r in unique]
    use_stamps = bool(unique) and run.start is not None and all(
        s is not None and run.start.timestamp() - 1.0 <= s.timestamp() <= end for s in stamps
    )

    def wall_at(i: int) -> float:
        if not unique:
            return run.wall_seconds
        if use_stamps:
            return max(0.0, stamps[i].timestamp() - run.start.timestamp())
        return run.wall_seconds * (i + 1) / len(unique)

    rows = []
    for budget in spec.budgets:
        upto = unique[:budget]
        good = [gflops_of(spec, float(r["time"])) for r in upto if not _failed(r)]
        row: dict[str, Any] = {
            "kernel": "aoe_gemm",
            "tuner": f"kernel_tuner:{run.strategy}",
            "evaluations": budget,
            "best_gflops": max(good) if good else None,
            "wall_seconds": wall_at(len(upto) - 1) if upto else run.wall_seconds,
            "compile_seconds": sum(float(r.get("compile_time", 0) or 0) for r in upto) / 1000.0,
            "failed": sum(1 for r in upto if _failed(r)),
        }
        if run.error is not None:
            row["error"] = run.error
        rows.append(row)

    best = None
    for r in unique:
        if not _failed(r) and (best is None or float(r["time"]) < float(best["time"])):
            best = r
    detail = {
        "strategy": run.strategy,
        "distinct_evaluations": len(unique),
        "results_returned": len(run.results),
        "wall_seconds_total": run.wall_seconds,
        "wall_seconds_method": "timestamps" if use_stamps else "scaled",
        "best_config": {p: best[p] for p in names} if best else None,
        "unverified": sum(1 for r in unique if r.get("aoe_verified", 1) == 0),
    }
    if run.error is not None:
        detail["error"] = run.error
    return rows, detail


def count_searchspace(spec: Spec, max_threads: int) -> int:
    """Size of Kernel Tuner's search space under the membership restriction."""
    from kernel_tuner.searchspace import Searchspace

    names = list(spec.block_size_names) + [
        n for n in ("block_size_x", "block_size_y", "block_size_z")[len(spec.block_size_names):]
    ]
    space = Searchspace(dict(spec.tune_params), make_restriction(spec), max_threads, block_size_names=names)
    return space.size


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    p = argparse.ArgumentParser(
        description="Tune OpenAOE's CUDA GEMM with Kernel Tuner (CuPy backend) and write "
        "per-strategy, per-budget rows for the C++ bench.",
        epilog="Exit codes: 0 ok, 1 error (or every strategy failed), 2 bad input, 3 no CuPy/GPU.",
    )
    p.add_argument("--spec", type=Path, help="kernel_tuner_spec.json written by the C++ bench")
    p.add_argument("--json", type=Path, help="write the results here (default: stdout)")
    p.add_argument(
        "--strategies",
        help="comma-separated strategies, overriding the spec's list "
        f"(default: the spec's list, plus {LLM_STRATEGY} when missing)",
    )
    p.add_argument(
        "--no-llm-strategy",
        action="store_true",
        help=f"do not append the LLM-generated strategy {LLM_STRATEGY} to the spec's list",
    )
    p.add_argument("--time-limit", type=float, default=120.0, help="seconds per strategy (default 120)")
    p.add_argument("--iterations", type=int, default=7, help="benchmark runs per configuration (default 7)")
    p.add_argument("--device", type=int, default=0, help="CUDA device ordinal (default 0)")
    p.add_argument("--list-strategies", action="store_true", help="list Kernel Tuner's strategies and exit")
    p.add_argument(
        "--simulate",
        type=Path,
        metavar="CACHE",
        help="replay this Kernel Tuner cache file (simulation mode, no GPU; for tests)",
    )
    p.add_argument("--verbose", action="store_true", help="let Kernel Tuner print every configuration")
    return p


def pick_strategies(spec: Spec, args: argparse.Namespace, known: list[str]) -> list[str]:
    """Strategies to run: --strategies, or the spec's plus the LLM-generated default."""
    if args.strategies:
        chosen = [s.strip() for s in args.strategies.split(",") if s.strip()]
        for s in chosen:
            if s not in known:
                raise InputError(f"--strategies: unknown strategy '{s}'; available: {', '.join(known)}")
        if not chosen:
            raise InputError("--strategies: empty list")
        return list(dict.fromkeys(chosen))
    chosen = list(spec.strategies)
    if not args.no_llm_strategy and LLM_STRATEGY in known and LLM_STRATEGY not in chosen:
        chosen.append(LLM_STRATEGY)
    return chosen


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code."""
    args = build_parser().parse_args(argv)
    try:
        import_kernel_tuner()
    except RuntimeError as e:
        print(f"kernel_tuner_gemm.py: {e}", file=sys.stderr)
        return EXIT_ERROR
    if args.list_strategies:
        list_strategies()
        return EXIT_OK
    try:
        if args.spec is None:
            raise InputError("--spec is required (or use --list-strategies)")
        if args.time_limit <= 0:
            raise InputError("--time-limit must be positive")
        if args.iterations <= 0:
            raise InputError("--iterations must be positive")
        if args.simulate is not None and not args.simulate.is_file():
            raise InputError(f"--simulate: cache file {args.simulate} does not exist")
        known = available_strategies()
        spec = load_spec(args.spec, known)
        strategies = pick_strategies(spec, args, known)
    except InputError as e:
        print(f"kernel_tuner_gemm.py: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT

    try:
        import numpy as np

        recorder: VerificationRecorder | None = None
        common: dict[str, Any] = {
            "grid_div_x": spec.grid_div_x,
            "grid_div_y": spec.grid_div_y,
            "block_size_names": spec.block_size_names,
            "restrictions": make_restriction(spec),
            "iterations": args.iterations,
            "metrics": {"GFLOP/s": lambda p: gflops_of(spec, p["time"])},
            "quiet": not args.verbose,
            "verbose": args.verbose,
            "seed": spec.seed,
        }
        options = list(spec.compiler_options)
        include = f"-I{spec.kernel_source.parent}"
        if include not in options:
            options.append(include)
        common["compiler_options"] = options

        if args.simulate is not None:
            # No GPU: tiny placeholder arrays (the kernel never runs) and the
            # device name from the cache; no verification.
            try:
                from kernel_tuner.util import read_cache

                device = str(read_cache(str(args.simulate), open_cache=False).get("device_name", "simulation"))
            except (OSError, ValueError, KeyError, AttributeError) as e:
                print(f"kernel_tuner_gemm.py: --simulate: {args.simulate}: not a Kernel Tuner cache: {e}", file=sys.stderr)
                return EXIT_BAD_INPUT
            arguments = [np.int32(spec.m), np.int32(spec.n), np.int32(spec.k)] + [
                np.zeros(1, dtype=np.float32) for _ in range(3)
            ]
            common.update(lang="cupy", simulation_mode=True, cache=str(args.simulate.resolve()))
            max_threads = 1_000_000_000
        else:
            cp = import_cupy()
            cp.cuda.Device(args.device).use()
            device = device_name(cp, args.device)
            a, b = make_inputs(spec)
            reference = reference_gemm(cp, spec, a, b)
            recorder = VerificationRecorder(cp, reference, spec.atol, spec.rtol)
            c = np.zeros((spec.m, spec.n), dtype=np.float32)
            arguments = [np.int32(spec.m), np.int32(spec.n), np.int32(spec.k), a, b, c]
            common.update(
                lang="cupy",
                device=args.device,
                answer=[None] * (NUM_KERNEL_ARGS - 1) + [reference],
                atol=spec.atol,
                verify=recorder.verify,
            )
            max_threads = int(cp.cuda.Device(args.device).attributes["MaxThreadsPerBlock"])

        size = count_searchspace(spec, max_threads)
        print(
            f"kernel_tuner_gemm.py: Kernel Tuner {kernel_tuner_version()} on {device}; "
            f"{len(spec.configurations)} configurations in the spec"
            + (f" ({spec.duplicates} duplicates dropped)" if spec.duplicates else "")
            + f", {size} in Kernel Tuner's search space; strategies: {', '.join(strategies)}",
            file=sys.stderr,
        )

        rows: list[dict[str, Any]] = []
        details: list[dict[str, Any]] = []
        for strategy in strategies:
            run = run_strategy(spec, strategy, arguments, common, args.time_limit, recorder)
            strategy_rows, detail = summarize(spec, run)
            rows.extend(strategy_rows)
            details.append(detail)
            status = f"error: {run.error}" if run.error else (
                f"{detail['distinct_evaluations']} distinct evaluations, best "
                f"{max((r['best_gflops'] or 0.0) for r in strategy_rows):.1f} GFLOP/s"
            )
            print(f"kernel_tuner_gemm.py: {strategy}: {run.wall_seconds:.1f} s, {status}", file=sys.stderr)
            if args.simulate is None:
                gc.collect()
                cp.get_default_memory_pool().free_all_blocks()

        report = {
            "tool": "kernel_tuner",
            "version": kernel_tuner_version(),
            "device": device,
            "simulated": args.simulate is not None,
            "spec": str(spec.path),
            "searchspace_size": size,
            "time_limit_seconds": args.time_limit,
            "iterations": args.iterations,
            "results": rows,
            "runs": details,
        }
        text = json.dumps(report, indent=2) + "\n"
        if args.json is not None:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
        return EXIT_OK if any("error" not in d for d in details) else EXIT_ERROR
    except NoGpuError as e:
        print(f"kernel_tuner_gemm.py: {e}", file=sys.stderr)
        return EXIT_NO_GPU
    except Exception as e:  # noqa: BLE001 - top-level: message and exit code 1
        print(f"kernel_tuner_gemm.py: {type(e).__name__}: {e}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
