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

import sys
from typing import Any, Dict, List

from verl.utils import hf_tokenizer
from verl.workers.reward_manager.naive import NaiveRewardManager as LegacyNaive

from conftest import GEAR_COMMAND  # noqa: E402  (python-bridge/tests)
from gear_bridge import EmbeddedServer
from samples import make_samples  # noqa: E402  (python-bridge/tests/verl_glue)
from revision_package import package_at  # noqa: E402  (bench/python)
from paired_steps import TABLE_HEAD, paired_times, print_ratios  # noqa: E402  (bench/python)
from verl_step import N, PROMPTS, distinct_rows, loaded_reward_fn, make_step, own_rows, tokenizer_dir  # noqa: E402

BASE_STEPS = 12


def main(revision: str, steps: int, form: str, kwargs: Dict[str, Any]) -> int:
    package = package_at(revision)
    tokenizer = hf_tokenizer(tokenizer_dir())
    server = EmbeddedServer(GEAR_COMMAND, extra_args=["--log-level", "warn"]).__enter__()
    try:
        functions = [("flat Python", loaded_reward_fn("pkg://verl_legacy_step", "flat_sync")),
                     (f"compute_score_sync at {revision}", loaded_reward_fn(f"pkg://{package}.verl.reward_fn", "compute_score_sync", url=server.url, **kwargs)),
                     ("compute_score_sync, work tree", loaded_reward_fn("pkg://gear_bridge.verl.reward_fn", "compute_score_sync", url=server.url, **kwargs))]
        managers = [LegacyNaive(tokenizer, 0, compute_score=function) for _, function in functions]
        base = [make_step(tokenizer, distinct_rows(make_samples(seed=700 + k, prompts=PROMPTS, group=N, formats=(form,)), k))
                for k in range(BASE_STEPS)]
        outputs = [manager(own_rows(base[0], 2 * 10**6 + k), return_dict=True) for k, manager in enumerate(managers[1:])]
        same = (outputs[0]["reward_tensor"].equal(outputs[1]["reward_tensor"])
                and {k: list(v) for k, v in outputs[0]["reward_extra_info"].items()} == {k: list(v) for k, v in outputs[1]["reward_extra_info"].items()})
        print(f"same rewards and fields on a step: {same}", flush=True)
        times = paired_times([lambda data, manager=manager: manager(data, return_dict=True) for manager in managers], base, steps)
        print(TABLE_HEAD, flush=True)
        print_ratios(form, [name for name, _ in functions], times)
        print_ratios(form, [f"work tree against {revision}"], times[2:], against=times[1])
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    arguments: List[str] = sys.argv[1:]
    if not arguments:
        sys.exit(__doc__)
    options = dict(a.split("=", 1) for a in arguments[3:])
    sys.exit(main(arguments[0], int(arguments[1]) if len(arguments) > 1 else 300, arguments[2] if len(arguments) > 2 else "canonical", options))
