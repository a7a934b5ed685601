"""Per-step reward cost of the legacy (verl <= 0.6) paths, in verl's own legacy managers: gear
against the same flat Python score written for each manager, in the same run.

Run with the verl venv (scripts/verl-venv) from the repository root:

    PYTHONPATH=python-bridge/src:python-bridge/tests:python-bridge/tests/verl_glue:bench/python \\
        $(scripts/verl-venv | sed -n 's/^python: //p') bench/python/verl_legacy_step.py

The steps are verl_step.py's (896 responses, every prompt's row new, judgments precomputed). The
legacy naive manager (``verl.workers.reward_manager.naive``) calls its function once per response,
without awaiting: gear's ``compute_score_sync`` (one blocking request per call) against a flat
function. The legacy batch manager (``verl.workers.reward_manager.batch``) calls its function once
with the whole step: gear's ``compute_score_batched`` (one request per kind of row) against a flat
function over the lists. Every function, flat's too, is loaded by verl's ``get_custom_reward_fn``,
as the trainer loads it (it wraps each to merge ``reward_kwargs`` into every call). Beside each
flat function, the same returning its score under every key gear returns (what verl's handling of
them costs). Each configuration runs each step in turn; gear/flat is the median of each step's own
ratio, with its quartiles.
"""
from __future__ import annotations

import gc
import statistics
import sys
import time
from typing import Any, Dict, List

from verl.utils import hf_tokenizer
from verl.workers.reward_manager.batch import BatchRewardManager
from verl.workers.reward_manager.naive import NaiveRewardManager as LegacyNaive

from conftest import GEAR_COMMAND  # noqa: E402  (python-bridge/tests)
from gear_bridge import EmbeddedServer
from samples import make_samples  # noqa: E402  (python-bridge/tests/verl_glue)
from verl_step import GEAR_KEYS, LONG, N, PROMPTS, distinct_rows, flat_score, flat_with_gear_keys, lengthened, loaded_reward_fn, make_step, own_rows, step_orders, tokenizer_dir  # noqa: E402

REPEATS = 30  # medians of fewer steps moved between runs by more than the differences measured


def flat_sync(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any) -> Dict[str, float]:
    """The flat weighted score of verl_step.py, for a manager that does not await."""
    return flat_score(extra_info)


def flat_batched(data_sources: Any, solution_strs: Any, ground_truths: Any, extra_infos: Any, **kwargs: Any) -> List[Dict[str, float]]:
    """The same, over the lists the legacy batch manager passes."""
    return [flat_sync(d, s, g, e) for d, s, g, e in zip(data_sources, solution_strs, ground_truths, extra_infos)]


def flat_keys_sync(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any) -> Dict[str, float]:
    """The same score under every key gear returns with metrics on (what verl's handling of them costs)."""
    return flat_with_gear_keys(extra_info)


def flat_keys_batched(data_sources: Any, solution_strs: Any, ground_truths: Any, extra_infos: Any, **kwargs: Any) -> List[Dict[str, float]]:
    return [flat_with_gear_keys(e) for e in extra_infos]


def main() -> int:
    tokenizer = hf_tokenizer(tokenizer_dir())
    server = EmbeddedServer(GEAR_COMMAND, extra_args=["--log-level", "warn"]).__enter__()
    try:
        # Every function as verl loads it (loaded_reward_fn): flat's get verl's wrapper too.
        flat, gear, batch = "pkg://verl_legacy_step", "pkg://gear_bridge.verl.reward_fn", "pkg://gear_bridge.verl.batch"
        managers: List[tuple[str, str, Any]] = [
            ("legacy naive", "flat Python", LegacyNaive(tokenizer, 0, compute_score=loaded_reward_fn(flat, "flat_sync"))),
            ("legacy naive", f"flat Python, returning gear's {len(GEAR_KEYS)} keys",
             LegacyNaive(tokenizer, 0, compute_score=loaded_reward_fn(flat, "flat_keys_sync"))),
            ("legacy naive", "compute_score_sync", LegacyNaive(tokenizer, 0, compute_score=loaded_reward_fn(gear, "compute_score_sync", url=server.url))),
            ("legacy batch", "flat Python", BatchRewardManager(tokenizer, 0, compute_score=loaded_reward_fn(flat, "flat_batched"))),
            ("legacy batch", f"flat Python, returning gear's {len(GEAR_KEYS)} keys",
             BatchRewardManager(tokenizer, 0, compute_score=loaded_reward_fn(flat, "flat_keys_batched"))),
            ("legacy batch", "compute_score_batched",
             BatchRewardManager(tokenizer, 0, compute_score=loaded_reward_fn(batch, "compute_score_batched", url=server.url))),
        ]
        scenarios = {"judge scores (canonical rows)": ("canonical", 700, 0), "RuscaRL rows (grader outputs)": ("ruscarl", 800, 0),
                     f"RuscaRL rows, {LONG}-token responses": ("ruscarl", 900, LONG)}
        for name, (form, seed, length) in scenarios.items():
            shared_steps = [make_step(tokenizer, lengthened(distinct_rows(make_samples(seed=seed + k, prompts=PROMPTS, group=N, formats=(form,)), k), length))
                            for k in range(REPEATS + 1)]
            # gear's two functions share one client and its registered rubrics (the same
            # reward_kwargs): each manager gets rows of its own, as every step's rows are new in training.
            steps = [[own_rows(step, k) for step in shared_steps] for k in range(len(managers))]
            for k, (_, _, manager) in enumerate(managers):
                manager(steps[k][0], return_dict=True)  # warm-up: connection, imports
            gc.collect()
            gc.freeze()
            times: List[List[float]] = [[] for _ in managers]
            orders = step_orders(len(managers))
            for s in range(1, len(shared_steps)):
                for k in next(orders):
                    started = time.perf_counter()
                    out = managers[k][2](steps[k][s], return_dict=True)
                    times[k].append((time.perf_counter() - started) * 1000)
                    assert len(out["reward_extra_info"]["score"]) == len(shared_steps[s])
            for k, (path, function, _) in enumerate(managers):
                if function == "flat Python":
                    continue
                flat = times[[p for p, f, _ in managers].index(path)]  # the manager's own flat function
                q1, q2, q3 = statistics.quantiles([g / f for g, f in zip(times[k], flat)], n=4)
                print(f"| {name} | {path} | {function} | {statistics.median(flat):.0f} | {statistics.median(times[k]):.0f} | "
                      f"{q2:.2f} ({q1:.2f}-{q3:.2f}) |", flush=True)
            gc.unfreeze()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    print("| rows | manager | function | flat Python ms | function ms | function/flat per step: median (quartiles) |\n"
          "| --- | --- | --- | --- | --- | --- |", flush=True)
    sys.exit(main())
