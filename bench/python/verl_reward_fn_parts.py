"""The reward function's step cost in verl's reward loop, by configuration: many paired steps.

Run with the verl venv (scripts/verl-venv) from the repository root:

    PYTHONPATH=python-bridge/src:python-bridge/tests:python-bridge/tests/verl_glue:bench/python \\
        $(scripts/verl-venv | sed -n 's/^python: //p') bench/python/verl_reward_fn_parts.py [STEPS] [FORM] [NAME...]

verl_step.py runs every path in 20 steps, whose medians move by +-5% between runs on this machine.
This runs STEPS (default 60) steps of one RewardLoopWorker (the step in verl's 8 chunks of 112, one
after the other, as verl_step.py does) with the reward-loop naive manager and a custom function,
each configuration on rows of its own that no step saw before (a base of 12 steps, retagged per
step and configuration), every configuration running each step in turn:

- flat Python (the baseline);
- gear's ``compute_score`` with its defaults (scored in the worker);
- the same with ``options`` set in reward_kwargs as the README shows them (an OmegaConf container,
  as hydra gives it): ``{gamma: 1}`` (the default's value) and ``{gamma: 2, normalize: abs-sum}``;
  ``{gamma: 4}`` (the paper's strongest suppression: a real pow per retention) and
  ``{multiParentRule: geometric-mean}`` (a real pow per criterion of several parents);
- ``aggregator=gear-exact`` and ``aggregator=auto`` (exact inference, scored in the worker);
- the server path (``in_process=false``: what rows the in-process scorer declines take).

Given NAMEs, only the configurations whose name is one of them run besides flat (e.g.
``compute_score`` alone: fewer configurations make a step shorter, so more steps fit the same time).
Per configuration: the median of each step's ratio to flat, with its standard error (from the
quartiles) and quartiles.
"""
from __future__ import annotations

import sys
from typing import List

from verl.utils import hf_tokenizer

from conftest import GEAR_COMMAND  # noqa: E402  (python-bridge/tests)
from gear_bridge import EmbeddedServer
from paired_steps import base_steps, paired_times, print_ratios, table_main  # noqa: E402  (bench/python)
from verl_step import timed_step, tokenizer_dir, worker_for  # noqa: E402



def main(steps: int, form: str) -> int:
    tok = tokenizer_dir()
    tokenizer = hf_tokenizer(tok)
    server = EmbeddedServer(GEAR_COMMAND, extra_args=["--log-level", "warn"]).__enter__()
    try:
        kwargs = "+reward.custom_reward_function.reward_kwargs"
        gear = ["reward.custom_reward_function.path=pkg://gear_bridge.verl.reward_fn", "reward.custom_reward_function.name=compute_score",
                f"{kwargs}.url={server.url}", f"{kwargs}.metrics=True"]
        configs: List[tuple[str, List[str]]] = [
            ("flat Python", ["reward.custom_reward_function.path=pkg://verl_step", "reward.custom_reward_function.name=flat_compute_score"]),
            ("compute_score", gear),
            ("compute_score, options {gamma: 1}", [*gear, f"{kwargs}.options={{gamma: 1}}"]),
            ("compute_score, options {gamma: 2, normalize: abs-sum}", [*gear, f"{kwargs}.options={{gamma: 2, normalize: abs-sum}}"]),
            ("compute_score, options {gamma: 4}", [*gear, f"{kwargs}.options={{gamma: 4}}"]),
            ("compute_score, options {multiParentRule: geometric-mean}", [*gear, f"{kwargs}.options={{multiParentRule: geometric-mean}}"]),
            ("compute_score, aggregator=gear-exact", [*gear, f"{kwargs}.aggregator=gear-exact"]),
            ("compute_score, aggregator=auto", [*gear, f"{kwargs}.aggregator=auto"]),
            ("compute_score, server path (in_process=false)", [*gear, f"{kwargs}.in_process=false"]),
        ]
        wanted, names = sys.argv[3:], [name for name, _ in configs]
        unknown = [name for name in wanted if name not in names]
        if unknown:
            raise SystemExit(f"no configuration named {unknown}; the names: {names}")
        configs = [config for k, config in enumerate(configs) if k == 0 or not wanted or config[0] in wanted]
        workers = [worker_for(tok, lines) for _, lines in configs]
        base = base_steps(tokenizer, form)
        times = paired_times([lambda data, worker=worker: timed_step(worker, data) for worker in workers], base, steps)
        print_ratios(form, [name for name, _ in configs], times)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    table_main(main, 60)
