"""The work tree's ``compute_score`` against another revision's, in verl's reward loop, in the same paired steps.

Run with the verl venv (scripts/verl-venv) from the repository root:

    PYTHONPATH=python-bridge/src:python-bridge/tests:python-bridge/tests/verl_glue:bench/python \\
        $(scripts/verl-venv | sed -n 's/^python: //p') bench/python/verl_reward_fn_ab.py REV [STEPS] [FORM] [KEY=VALUE ...]

The reward loop's step ratios spread widely (quartiles ~0.8-1.2 of flat in verl_reward_fn_parts.py),
so a change of a few percent needs its two versions timed in the same steps. This runs, as
verl_reward_fn_parts.py does (one RewardLoopWorker, verl's 8 chunks of 112 one after the other,
the naive reward-loop manager), flat Python, REV's ``compute_score`` (``python-bridge/src/gear_bridge``
at REV, imported as a package of another name) and the work tree's, each on rows of its own in
every step, in an order drawn afresh each step, STEPS steps (default 200) of FORM rows, with
KEY=VALUE as reward_kwargs of both (hydra values: ``aggregator=gear-exact``, ``in_process=false``).

Prints whether both gave the same rewards and fields on a step, each against flat, and the work
tree against REV.
"""
from __future__ import annotations

from typing import Dict

from verl.utils import hf_tokenizer

from conftest import GEAR_COMMAND  # noqa: E402  (python-bridge/tests)
from gear_bridge import EmbeddedServer
from ab_bench import command_line, package_at, report  # noqa: E402  (bench/python)
from paired_steps import base_steps  # noqa: E402  (bench/python)
from verl_step import get_event_loop, own_rows, timed_step, tokenizer_dir, worker_for  # noqa: E402


def main(revision: str, steps: int, form: str, kwargs: Dict[str, str]) -> int:
    package = package_at(revision)
    tok = tokenizer_dir()
    tokenizer = hf_tokenizer(tok)
    server = EmbeddedServer(GEAR_COMMAND, extra_args=["--log-level", "warn"]).__enter__()
    try:
        given = [f"+reward.custom_reward_function.reward_kwargs.{key}={value}" for key, value in {"url": server.url, **kwargs}.items()]
        configs = [("flat Python", ["reward.custom_reward_function.path=pkg://verl_step", "reward.custom_reward_function.name=flat_compute_score"]),
                   (f"compute_score at {revision}", [f"reward.custom_reward_function.path=pkg://{package}.verl.reward_fn", *given]),
                   ("compute_score, work tree", ["reward.custom_reward_function.path=pkg://gear_bridge.verl.reward_fn", *given])]
        workers = [worker_for(tok, lines) for _, lines in configs]
        base = base_steps(tokenizer, form)
        loop = get_event_loop()
        outputs = [[item for chunk in own_rows(base[0], 2 * 10**6 + k).chunk(8) for item in loop.run_until_complete(worker.compute_score_batch(chunk))]
                   for k, worker in enumerate(workers[1:])]
        report(revision, form, outputs[0] == outputs[1], [name for name, _ in configs],
               [lambda data, worker=worker: timed_step(worker, data) for worker in workers], base, steps)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    command_line(main, 200, __doc__)
