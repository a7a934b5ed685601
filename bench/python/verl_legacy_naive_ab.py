"""The work tree's ``compute_score_sync`` against another revision's, in the same paired steps.

Run with the verl venv (scripts/verl-venv) from the repository root:

    PYTHONPATH=python-bridge/src:python-bridge/tests:python-bridge/tests/verl_glue:bench/python \\
        $(scripts/verl-venv | sed -n 's/^python: //p') bench/python/verl_legacy_naive_ab.py REV [STEPS] [FORM] [KEY=VALUE ...]

A change to gear's per-call work moves verl's legacy naive step by 0.5-3%, less than the spread of
one configuration's figure between runs of verl_legacy_naive_parts.py. This times flat Python,
REV's ``compute_score_sync`` (``python-bridge/src/gear_bridge`` at REV, from ``git archive``,
imported as a package of another name) and the work tree's, each on rows of its own in every step,
in an order drawn afresh each step, STEPS steps (default 300) of FORM rows (canonical or ruscarl),
with KEY=VALUE as reward_kwargs of both (the server's URL is always given). An A/A run (REV the
work tree's own commit, unchanged) gave 0.999 +- 0.004.

Prints each against flat, and the work tree against REV; first, whether both gave the same rewards
and fields on a step (an A/B compares equal work: a change of rewards is a finding of its own).
"""
from __future__ import annotations

from typing import Any, Dict

from verl.utils import hf_tokenizer
from verl.workers.reward_manager.naive import NaiveRewardManager as LegacyNaive

from conftest import GEAR_COMMAND  # noqa: E402  (python-bridge/tests)
from gear_bridge import EmbeddedServer
from ab_bench import command_line, package_at, report  # noqa: E402  (bench/python)
from paired_steps import base_steps  # noqa: E402  (bench/python)
from verl_step import loaded_reward_fn, own_rows, tokenizer_dir  # noqa: E402


def main(revision: str, steps: int, form: str, kwargs: Dict[str, Any]) -> int:
    package = package_at(revision)
    tokenizer = hf_tokenizer(tokenizer_dir())
    server = EmbeddedServer(GEAR_COMMAND, extra_args=["--log-level", "warn"]).__enter__()
    try:
        functions = [("flat Python", loaded_reward_fn("pkg://verl_legacy_step", "flat_sync")),
                     (f"compute_score_sync at {revision}", loaded_reward_fn(f"pkg://{package}.verl.reward_fn", "compute_score_sync", url=server.url, **kwargs)),
                     ("compute_score_sync, work tree", loaded_reward_fn("pkg://gear_bridge.verl.reward_fn", "compute_score_sync", url=server.url, **kwargs))]
        managers = [LegacyNaive(tokenizer, 0, compute_score=function) for _, function in functions]
        base = base_steps(tokenizer, form)
        outputs = [manager(own_rows(base[0], 2 * 10**6 + k), return_dict=True) for k, manager in enumerate(managers[1:])]
        same = (outputs[0]["reward_tensor"].equal(outputs[1]["reward_tensor"])
                and {k: list(v) for k, v in outputs[0]["reward_extra_info"].items()} == {k: list(v) for k, v in outputs[1]["reward_extra_info"].items()})
        report(revision, form, same, [name for name, _ in functions], [lambda data, manager=manager: manager(data, return_dict=True) for manager in managers],
               base, steps)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    command_line(main, 300, __doc__)
