"""What the garbage collector costs one of verl's Ray reward workers, under flat and under gear.

Run with the verl venv (scripts/verl-venv) from the repository root, one configuration a process:

    PYTHONPATH=python-bridge/src:python-bridge/tests:python-bridge/tests/verl_glue:bench/python \\
        $(scripts/verl-venv | sed -n 's/^python: //p') bench/python/verl_worker_gc.py flat|flat-keys|gear [canonical|ruscarl]

One process stands for one of the 8 `RewardLoopWorker`s of verl's Ray loop (verl_ray_step.py): it
holds torch and verl as a worker does (~420,000 objects), and each step it unpickles its chunk of 112
responses as Ray delivers it, scores it with `compute_score_batch` and pickles the results, for
STEPS steps (every prompt's row new) after 3 warm-up steps. No `gc.freeze`: verl's workers call none.
It prints the process's CPU a step and what the collector took of it, by generation. A full
collection (generation 2) scans the whole heap, ~0.2 s here; how often one comes depends on how many
objects outlive the younger collections, so a reward function that keeps more of them alive (caches,
say) would bring them more often. Steps as in verl_step.py, rows and judgments from samples.py.
"""
from __future__ import annotations

import gc
import pickle
import sys
import tempfile
import time
from typing import Any, Dict, List

from verl.utils import hf_tokenizer
from verl.utils.ray_utils import get_event_loop

from conftest import GEAR_COMMAND  # noqa: E402  (python-bridge/tests)
from samples import make_samples  # noqa: E402  (python-bridge/tests/verl_glue)
from verl_step import N, distinct_rows, make_step, tokenizer_dir, worker_for  # noqa: E402  (bench/python)

STEPS = 150
WARM_UP = 3
PROMPTS = 14  # 112 responses: one worker's chunk of verl's 896


def lines_of(configuration: str, run_dir: str) -> List[str]:
    flat = "reward.custom_reward_function.path=pkg://verl_step"
    return {
        "flat": [flat, "reward.custom_reward_function.name=flat_compute_score"],
        "flat-keys": [flat, "reward.custom_reward_function.name=flat_keys_compute_score"],
        "gear": ["reward.custom_reward_function.path=pkg://gear_bridge.verl.reward_fn",
                 f"+reward.custom_reward_function.reward_kwargs.run_dir={run_dir}",
                 f"+reward.custom_reward_function.reward_kwargs.server_command=[{GEAR_COMMAND[0]},{GEAR_COMMAND[1]}]"],
    }[configuration]


def main(configuration: str, form: str) -> int:
    tok = tokenizer_dir()
    tokenizer = hf_tokenizer(tok)
    # Pickled, as Ray hands a worker its chunk: held as bytes, the steps add no objects to the heap.
    chunks = [pickle.dumps(make_step(tokenizer, distinct_rows(make_samples(seed=5000 + k, prompts=PROMPTS, group=N, formats=(form,)), k)),
                           protocol=5) for k in range(WARM_UP + STEPS)]
    worker = worker_for(tok, lines_of(configuration, tempfile.mkdtemp(prefix="gear-bench-run-")))
    loop = get_event_loop()

    def step(chunk: bytes) -> bytes:
        return pickle.dumps(loop.run_until_complete(worker.compute_score_batch(pickle.loads(chunk))), protocol=5)

    for chunk in chunks[:WARM_UP]:
        step(chunk)
    took = [0.0, 0.0, 0.0]
    count = [0, 0, 0]
    started = [0.0]

    def note(phase: str, info: Dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            took[info["generation"]] += time.perf_counter() - started[0]
            count[info["generation"]] += 1

    gc.callbacks.append(note)
    cpu = time.process_time()
    for chunk in chunks[WARM_UP:]:
        step(chunk)
    cpu = (time.process_time() - cpu) * 1000 / STEPS
    gc.callbacks.remove(note)
    print(f"| {form} | {configuration} | {STEPS} | {cpu:.1f} | {sum(took) * 1000 / STEPS:.1f} | {count[0]} / {count[1]} / {count[2]} | "
          f"{took[2] * 1000 / max(count[2], 1):.0f} | {len(gc.get_objects())} |", flush=True)
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("flat", "flat-keys", "gear"):
        sys.exit(__doc__)
    print("| rows | function | steps | CPU ms a step | the collector's ms a step | collections by generation (0 / 1 / 2) | "
          "ms a full collection | objects tracked |\n| --- | --- | --- | --- | --- | --- | --- | --- |", flush=True)
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "canonical"))
