"""Paired steps for the paired benches (*_parts, *_ab, reward_fn_alone.py): every configuration runs each step in turn, on rows of its own.

One configuration's step is timed against the first's (the baseline) step by step, so a slow spell
of the machine, which moves medians of milliseconds by 10-30% between runs here, falls on both.
"""
from __future__ import annotations

import gc
import json
import random
import re
import statistics
import sys
import time
from typing import Any, Callable, List, Sequence

from cases import scored_outputs, subitem_outputs  # noqa: E402  (python-bridge/tests)
from samples import make_samples, official_outputs  # noqa: E402  (python-bridge/tests/verl_glue)
from verl_step import LONG, N, PROMPTS, distinct_rows, lengthened, make_step, own_rows, step_orders  # noqa: E402  (bench/python)

#: Steps the paired runs take their rows from, in turn.
BASE_STEPS = 12

TABLE_HEAD = ("| rows | function | ms per step (median) | function/flat per step: median +- standard error (quartiles) |\n"
              "| --- | --- | --- | --- |")


def base_steps(tokenizer: Any, form: str) -> List[Any]:
    """The steps the paired runs take their rows from (each run gets its own copy per step).
    ``FORM+reasoning``: FORM's rows, each judge output after a reasoning model's ``<think>`` block;
    ``FORM+prose``: one output in 20 after a sentence of prose (the host's search finds the JSON);
    ``FORM+cut``: one output in 20 cut short, as a judge's token limit cuts it (the host's repairs
    read it: a cut tail closed, a regex fallback);
    ``FORM+wide``: one output in 20 with its item keys outside ASCII, as a Chinese judge may write
    them ("第1项": the host reads them as naming no item);
    ``FORM+rule``: each row's first item checked by a rule function (not judged), the outputs
    answering the others (hosts gear, writingbench, plawbench);
    ``FORM+long``: each response padded to verl_step.LONG (1,500) tokens, as a policy writes them
    (verl's naive manager then decodes 1.3 M tokens a step: verl_step.py's third scenario)."""
    base, _, variant = form.partition("+")
    steps = []
    for k in range(BASE_STEPS):
        samples = make_samples(seed=700 + k, prompts=PROMPTS, group=N, formats=(base,))
        if variant == "reasoning":
            samples = with_reasoning(samples)
        elif variant == "prose":
            samples = with_prose(samples)
        elif variant == "cut":
            samples = with_cut(samples)
        elif variant == "wide":
            samples = with_wide_keys(samples)
        elif variant == "rule":
            samples = with_rule_verified(samples, random.Random(900 + k))
        elif variant == "long":
            samples = lengthened(samples, LONG)
        steps.append(make_step(tokenizer, distinct_rows(samples, k)))
    return steps


def with_reasoning(samples: List[Any]) -> List[Any]:
    """Each judge output (a list of strings) after a ``<think>`` block of ~200 characters, as a
    reasoning judge (Qwen3, DeepSeek-R1 distills) writes it."""
    for n, sample in enumerate(samples):
        outputs = sample["extra_info"]["gear_judgments"]
        sample["extra_info"]["gear_judgments"] = [
            f"<think>\nThe rubric item asks whether the response covers it; response {n} says {{enough}} of it, "
            f"so I weigh what it says against the item before I answer in JSON. Item {k}.\n</think>\n\n{output}"
            for k, output in enumerate(outputs)]
    return samples


def with_prose(samples: List[Any]) -> List[Any]:
    """One judge output in 20 (every 20th, counted over the step) after "Here is my evaluation:"."""
    return every_20th_output(samples, lambda output: f"Here is my evaluation:\n{output}")


def with_cut(samples: List[Any]) -> List[Any]:
    """One judge output in 20 (every 20th, counted over the step) cut to its first 80%."""
    return every_20th_output(samples, lambda output: output[:len(output) * 4 // 5])


def with_rule_verified(samples: List[Any], rng: random.Random) -> List[Any]:
    """Each row's first item tagged as one a rule function checks (the official code's
    ``verifier: rule``); the judge's outputs cover the other items, in requests of their own."""
    for sample in samples:
        spec = json.loads(sample["extra_info"]["gear"])
        rubrics = spec["row"]["reward_model"]["rubrics"]
        rubrics[0]["tags"] = {"verifier": "rule", "function": "within_range"}
        judged = rubrics[1:]
        if spec["format"] == "writingbench":
            outputs = scored_outputs(rng, len(judged))
        elif spec["format"] == "plawbench":
            outputs = subitem_outputs(rng, judged)
        else:
            outputs = official_outputs(rng, len(judged))
        sample["extra_info"]["gear"] = json.dumps(spec)
        sample["extra_info"]["gear_judgments"] = outputs
    return samples


_ITEM_KEY = re.compile(r'"([0-9]+)":')


def with_wide_keys(samples: List[Any]) -> List[Any]:
    """One judge output in 20 (every 20th, counted over the step) with each key "k" written "第k项"."""
    return every_20th_output(samples, lambda output: _ITEM_KEY.sub('"第\\1项":', output))


def every_20th_output(samples: List[Any], change: Callable[[str], str]) -> List[Any]:
    """The samples with every 20th judge output of the step (counted over all) changed."""
    seen = 0
    for sample in samples:
        outputs = sample["extra_info"]["gear_judgments"]
        changed = []
        for output in outputs:
            seen += 1
            changed.append(change(output) if seen % 20 == 0 else output)
        sample["extra_info"]["gear_judgments"] = changed
    return samples


def table_main(main: Callable[[int, str], int], default_steps: int) -> None:
    """``[STEPS] [FORM]`` into ``main`` under the table's head, then the run's seconds; exits with its code."""
    started = time.perf_counter()
    print(TABLE_HEAD, flush=True)
    code = main(int(sys.argv[1]) if len(sys.argv) > 1 else default_steps, sys.argv[2] if len(sys.argv) > 2 else "canonical")
    print(f"({time.perf_counter() - started:.0f} s)", flush=True)
    sys.exit(code)


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
