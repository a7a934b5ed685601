"""The work tree's reward function alone against another revision's, in the same paired steps.

Run with the verl venv (scripts/verl-venv) from the repository root:

    PYTHONPATH=python-bridge/src:python-bridge/tests:python-bridge/tests/verl_glue:bench/python \\
        $(scripts/verl-venv | sed -n 's/^python: //p') bench/python/reward_fn_alone_ab.py REV [STEPS] [FORM] [KEY=VALUE ...]

What reward_fn_alone.py times (each function awaited for a chunk's responses at once, verl's 8
chunks in turn, the calls prepared before the step is timed), for flat Python, REV's
``compute_score`` and the work tree's, with KEY=VALUE as reward_kwargs of both (Python literals
where they read as one: ``in_process=False``, ``aggregator='gear-exact'``). In verl's loop
(verl_reward_fn_ab.py) the rest of the step spreads each ratio by +-0.2, so a change of a few
milliseconds a step shows here and not there.
"""
from __future__ import annotations

import ast
import asyncio
from typing import Any, Dict

from verl.utils import hf_tokenizer

from conftest import GEAR_COMMAND  # noqa: E402  (python-bridge/tests)
from gear_bridge import EmbeddedServer
from ab_bench import command_line, package_at, report  # noqa: E402  (bench/python)
from paired_steps import base_steps  # noqa: E402  (bench/python)
from reward_fn_alone import call_maker, chunked_runner  # noqa: E402  (bench/python)
from verl_step import loaded_reward_fn, own_rows, tokenizer_dir  # noqa: E402  (bench/python)


def _value(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def main(revision: str, steps: int, form: str, kwargs: Dict[str, str]) -> int:
    package = package_at(revision)
    tokenizer = hf_tokenizer(tokenizer_dir())
    server = EmbeddedServer(GEAR_COMMAND, extra_args=["--log-level", "warn"]).__enter__()
    try:
        given = {"url": server.url, **{key: _value(value) for key, value in kwargs.items()}}
        functions = [loaded_reward_fn("pkg://verl_step", "flat_compute_score"),
                     loaded_reward_fn(f"pkg://{package}.verl.reward_fn", "compute_score", **given),
                     loaded_reward_fn("pkg://gear_bridge.verl.reward_fn", "compute_score", **given)]
        loop = asyncio.new_event_loop()
        calls_of = call_maker(tokenizer)
        base = base_steps(tokenizer, form)
        probe = own_rows(base[0], 2 * 10**6)  # rows no timed step uses, as verl_reward_fn_ab.py's check
        calls_of(probe)

        async def chunk_of(function: Any) -> list[Any]:
            return await asyncio.gather(*[function(data_source=source, solution_str=text, ground_truth=truth, extra_info=extra)
                                          for source, text, truth, extra in probe.meta_info["calls"][:112]])
        outputs = [loop.run_until_complete(chunk_of(function)) for function in functions[1:]]
        report(revision, form, outputs[0] == outputs[1], ["flat Python", f"compute_score at {revision}", "compute_score, work tree"],
               [chunked_runner(loop, calls_of, function) for function in functions], base, steps, before=[calls_of] * len(functions))
        loop.close()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    command_line(main, 200, __doc__)
