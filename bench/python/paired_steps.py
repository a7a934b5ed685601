"""Paired steps (verl_judge_step.py): every configuration runs each step in turn, on rows of its own.

One configuration's step is timed against the first's (the baseline) step by step, so a slow spell
of the machine falls on both.
"""
from __future__ import annotations

import gc
import statistics
import time
from typing import Any, Callable, List, Sequence

from verl_step import own_rows, step_orders  # noqa: E402  (bench/python)

TABLE_HEAD = ("| rows | function | ms per step (median) | function/flat per step: median +- standard error (quartiles) |\n"
              "| --- | --- | --- | --- |")


def paired_times(runs: Sequence[Callable[[Any], Any]], base: Sequence[Any], steps: int,
                 before: Sequence[Callable[[Any], Any] | None] = ()) -> List[List[float]]:
    """Seconds per step of each run: a warm-up on rows no step uses, the collector frozen (the bench
    holds every base step; a trainer holds one), then STEPS steps, every run on its own copy of
    ``base[s % len(base)]`` with rows new to it, the runs in an order drawn afresh each step
    (verl_step.step_orders). ``before[k]``, where given, is called with run k's step before it is timed."""
    for k, run in enumerate(runs):
        run(own_rows(base[0], 10**6 + k))  # warm-up: imports, connections
    gc.collect()
    gc.freeze()
    times: List[List[float]] = [[] for _ in runs]
    orders = step_orders(len(runs))
    for s in range(steps):
        order = next(orders)
        data = {k: own_rows(base[s % len(base)], s * len(runs) + k) for k in order}
        for k, prepare in enumerate(before):
            if prepare is not None:
                prepare(data[k])
        for k in order:
            started = time.perf_counter()
            runs[k](data[k])
            times[k].append(time.perf_counter() - started)
        del data
    return times


def print_ratios(form: str, names: Sequence[str], times: Sequence[Sequence[float]], against: Sequence[float] | None = None) -> None:
    """One table row per run: its median ms, and the median of its per-step ratio to the first run's
    (or to ``against``, another run's times)."""
    baseline = times[0] if against is None else against
    for name, spent in zip(names, times):
        ratios = [t / f for t, f in zip(spent, baseline)]
        q1, q2, q3 = statistics.quantiles(ratios, n=4)
        error = 1.253 * (q3 - q1) / 1.349 / len(ratios) ** 0.5  # of the median, normal approximation
        print(f"| {form} | {name} | {statistics.median(spent) * 1000:.1f} | {q2:.3f} +- {error:.3f} ({q1:.2f}-{q3:.2f}) |", flush=True)
