"""One reward function for verl that runs several reward functions side by side, by data source.

bench/python/verl_ray_step.py gives verl's Ray reward loop this function, and each step's rows
name the configuration that scores them in their ``data_source`` (the step's rows are copied for
each configuration). So every configuration runs in the same 8 worker processes, each step in
turn: a worker process's own costs (its heap, and so how long its collections of the garbage take;
what it has cached) fall on all of them alike, where a manager of their own each measured the same
function 1.01 to 1.20 of flat between runs. The dispatch costs one to three comparisons; gear's
configurations also look up their settings and, where they have any, merge them into verl's keyword
arguments: if it weighs on anyone, it weighs on gear.
"""
from __future__ import annotations

import gc
import os
import time
from typing import Any, Dict

from gear_bridge.verl.reward_fn import compute_score
from verl_step import flat_compute_score, flat_keys_compute_score

#: Each configuration's settings on top of the reward kwargs verl merges in (gear's machine server).
GEAR_SETTINGS: Dict[str, Dict[str, Any]] = {
    "reward function (naive manager)": {},
    "reward function, metrics=false": {"metrics": False},
    "reward function, aggregator=gear-exact": {"aggregator": "gear-exact"},
    "reward function, aggregator=auto": {"aggregator": "auto"},
}
FLAT = "flat Python"
FLAT_KEYS = "flat Python, returning gear's 12 keys"
CONFIGURATIONS = (FLAT, FLAT_KEYS, *GEAR_SETTINGS)

#: The folder where each worker writes when its full collections of the garbage started (time.time())
#: and how long they took, a line each, for verl_ray_step.py to tell whose steps they fell in.
COLLECTIONS_LOG = "BENCH_FULL_COLLECTIONS_DIR"


def _log_full_collections(folder: str) -> None:
    started = [0.0]

    def note(phase: str, info: Dict[str, Any]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            started[0] = time.time()
            return
        with open(os.path.join(folder, f"full-collections-{os.getpid()}.txt"), "a") as log:
            log.write(f"{started[0]:.6f} {(time.time() - started[0]) * 1000:.1f}\n")

    gc.callbacks.append(note)


if os.environ.get(COLLECTIONS_LOG):
    _log_full_collections(os.environ[COLLECTIONS_LOG])


async def side_by_side_compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None,
                                     **kwargs: Any) -> Dict[str, Any]:
    """flat's or gear's ``compute_score``, as ``data_source`` names it (gear gets the real data source)."""
    if data_source == FLAT:
        return await flat_compute_score("healthbench", solution_str, ground_truth, extra_info)
    if data_source == FLAT_KEYS:
        return await flat_keys_compute_score("healthbench", solution_str, ground_truth, extra_info)
    extra = GEAR_SETTINGS[data_source]
    return await compute_score("healthbench", solution_str, ground_truth, extra_info, **({**kwargs, **extra} if extra else kwargs))
