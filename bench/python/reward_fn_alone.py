"""The reward functions alone, called as verl's reward loop calls them: gear's own cost against flat's.

Run with the verl venv (scripts/verl-venv) from the repository root:

    PYTHONPATH=python-bridge/src:python-bridge/tests:python-bridge/tests/verl_glue:bench/python \\
        $(scripts/verl-venv | sed -n 's/^python: //p') bench/python/reward_fn_alone.py [STEPS] [FORM]

In verl's loop (verl_reward_fn_parts.py) a step of 896 responses takes ~150-230 ms, of which the
reward function is ~10-15 ms: the rest (slicing the batch, decoding each response, a task per
response, gathering the results) is the same for every function, and the per-step ratios spread
over 0.8-1.2, so a difference of a millisecond, under 1% of the step, needs hundreds of paired steps
to show. This times only what differs: each function, loaded by verl's own ``get_custom_reward_fn``
(which wraps flat's and gear's alike), awaited for every response of a chunk at once
(``asyncio.gather``, as ``RewardLoopWorker.compute_score_batch`` does), verl's 8 chunks of 112 one
after the other, with the decoded responses and each row's ``extra_info`` prepared before the
timed step. Configurations as verl_reward_fn_parts.py's, with "no reward" (a function that returns
0: what the calls and tasks cost) for scale. Rows and steps as verl_step.py's: every prompt's row
new to each configuration in each step (paired_steps.py).

What this leaves out is verl's handling of each result's keys (gear returns 12 with metrics on,
flat 1): ~1 ms a step in the worker and as much in the driver (bench/README.md).
"""
from __future__ import annotations

import asyncio
from typing import Any, Callable, List

from verl.utils import hf_tokenizer

from conftest import GEAR_COMMAND  # noqa: E402  (python-bridge/tests)
from gear_bridge import EmbeddedServer
from paired_steps import base_steps, paired_times, print_ratios, table_main  # noqa: E402  (bench/python)
from verl_step import loaded_reward_fn, tokenizer_dir  # noqa: E402  (bench/python)

CHUNKS = 8  # verl's 8 reward workers' chunks


def call_maker(tokenizer: Any) -> Callable[[Any], None]:
    """What verl hands the function per response, put in a step's meta_info before it is timed."""
    def calls_of(data: Any) -> None:
        texts = tokenizer.batch_decode(data.batch["responses"], skip_special_tokens=True)
        data.meta_info["calls"] = [(source, text, model["ground_truth"], extra_info) for source, text, model, extra_info in
                                   zip(data.non_tensor_batch["data_source"], texts, data.non_tensor_batch["reward_model"],
                                       data.non_tensor_batch["extra_info"])]
    return calls_of


def chunked_runner(loop: asyncio.AbstractEventLoop, calls_of: Callable[[Any], None], function: Callable[..., Any]) -> Callable[[Any], None]:
    """A step of ``function``: every response of a chunk awaited at once, verl's 8 chunks in turn."""
    async def chunk(calls: List[tuple[Any, str, Any, Any]]) -> None:
        results = await asyncio.gather(*[function(data_source=source, solution_str=text, ground_truth=truth, extra_info=extra_info)
                                         for source, text, truth, extra_info in calls])
        assert all(type(result) is dict and "score" in result for result in results)

    def run(data: Any) -> None:
        if "calls" not in data.meta_info:
            calls_of(data)  # the warm-up step
        calls = data.meta_info["calls"]
        size = len(calls) // CHUNKS
        for k in range(CHUNKS):
            loop.run_until_complete(chunk(calls[k * size:(k + 1) * size]))
    return run


def main(steps: int, form: str) -> int:
    tokenizer = hf_tokenizer(tokenizer_dir())
    server = EmbeddedServer(GEAR_COMMAND, extra_args=["--log-level", "warn"]).__enter__()
    try:
        gear = {"url": server.url, "metrics": True}
        configs: List[tuple[str, Callable[..., Any]]] = [
            ("flat Python", loaded_reward_fn("pkg://verl_step", "flat_compute_score")),
            ("no reward (the calls alone)", loaded_reward_fn("pkg://verl_step", "noop_compute_score")),
            ("compute_score", loaded_reward_fn("pkg://gear_bridge.verl.reward_fn", "compute_score", **gear)),
            ("compute_score, metrics=false", loaded_reward_fn("pkg://gear_bridge.verl.reward_fn", "compute_score", **{**gear, "metrics": False})),
            ("compute_score, aggregator=gear-exact", loaded_reward_fn("pkg://gear_bridge.verl.reward_fn", "compute_score", **gear, aggregator="gear-exact")),
            ("compute_score, aggregator=auto", loaded_reward_fn("pkg://gear_bridge.verl.reward_fn", "compute_score", **gear, aggregator="auto")),
            ("compute_score, options {gamma: 4}", loaded_reward_fn("pkg://gear_bridge.verl.reward_fn", "compute_score", **gear, options={"gamma": 4})),
            ("compute_score, options {multiParentRule: geometric-mean}", loaded_reward_fn("pkg://gear_bridge.verl.reward_fn", "compute_score", **gear,
                                                                                          options={"multiParentRule": "geometric-mean"})),
            ("compute_score, server path (in_process=false)", loaded_reward_fn("pkg://gear_bridge.verl.reward_fn", "compute_score", **gear,
                                                                                 in_process=False)),
        ]
        loop = asyncio.new_event_loop()
        calls_of = call_maker(tokenizer)
        base = base_steps(tokenizer, form)
        times = paired_times([chunked_runner(loop, calls_of, function) for _, function in configs], base, steps, before=[calls_of] * len(configs))
        print_ratios(form, [name for name, _ in configs], times)
        loop.close()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    table_main(main, 200)
