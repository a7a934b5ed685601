"""VERL reward functions: ``compute_score`` (the 0.9.x reward loop) and ``compute_score_sync``.

Reward loop (verl >= 0.7)::

    reward.custom_reward_function.path=pkg://gear_bridge.verl.reward_fn \\
    reward.custom_reward_function.name=compute_score

The legacy (non-async) naive manager calls its function without awaiting it, so it takes
``compute_score_sync`` (``custom_reward_function.name=compute_score_sync``).

VERL merges ``reward_kwargs`` into every call's keyword arguments; every setting of
:mod:`gear_bridge.settings` may be given there or in the environment. The calls that arrive together
on one event loop (until it turned 3 times without a new one, at most ``group_wait`` after the
first) go to the service as one request, not one per call.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..exceptions import ConfigError, RowError
from ..judge import Judge, JudgeCall
from ..rows import parse_row
from ..settings import Settings
from ..sync.loop_thread import shared_loop_thread
from .coalescer import IDLE_TURNS, GroupCoalescer
from .rewarder import REWARD_KEYS, Rewarder, Sample, call_endpoints
from .row_judgments import row_judgments, shared_row_guard
from .shared import call_settings, shared_rewarder

__all__ = ["REWARD_KEYS", "compute_score", "compute_score_sync"]

#: Where a call's row sits, for errors.
_PATH = ("extra_info",)


def _coalescer(rewarder: Rewarder) -> GroupCoalescer[Sample, dict[str, float | int]]:
    """The rewarder's coalescer of single calls (a rewarder belongs to one event loop)."""
    found = rewarder.single_calls
    if found is None:
        found = GroupCoalescer(rewarder.score_each, group_size=None, max_wait=rewarder.settings.group_wait, idle_turns=IDLE_TURNS)
        rewarder.single_calls = found
    return found


async def _sample(settings: Settings, judge: Judge | None, data_source: Any, solution_str: Any, ground_truth: Any, extra_info: Any) -> Sample:
    """The call's response with its judgments: a Python judge's, the row's own, or None for the
    service's judge to make them."""
    if not isinstance(solution_str, str):
        raise RowError(("solution_str",), f"must be the decoded response text, got {type(solution_str).__name__}")
    row = parse_row(extra_info)
    if judge is not None:
        made = await judge.judge(JudgeCall(row, solution_str, extra_info, data_source, ground_truth, _PATH))
        return Sample(row, solution_str, made, _PATH, ("judgment",))
    judgment = row_judgments(extra_info, row, settings, _PATH)
    if judgment is not None:
        shared_row_guard().check(extra_info, solution_str, _PATH, settings.judgments_key)
    return Sample(row, solution_str, judgment, _PATH, (*_PATH, settings.judgments_key))


async def compute_score(
    data_source: Any, solution_str: str, ground_truth: Any, extra_info: dict[str, Any] | None = None, **kwargs: Any
) -> dict[str, float | int]:
    """Scores one response against the rubric in ``extra_info["gear"]``.

    The judgments are the row's (``extra_info["gear_judgments"]``) when it has them, else the
    service's judge makes them (``judge_url``, or verl's reward router when verl passes
    ``reward_router_address``).

    Args:
        data_source: the row's data source.
        solution_str: the decoded response.
        ground_truth: the row's ``reward_model["ground_truth"]`` (unused).
        extra_info: the row's extra_info with ``"gear"`` (the rubric spec).
        **kwargs: settings (see :mod:`gear_bridge.settings`), ``judge`` (a Python judge), and
            verl's ``reward_router_address`` / ``reward_model_tokenizer``.

    Returns:
        :data:`~gear_bridge.verl.rewarder.REWARD_KEYS` (and the metric keys), the same keys for every
        call (VERL builds its arrays from the first call's keys), scalar values.

    Raises:
        RowError: the row or judgment is malformed (naming the field), or judgments were read from an
            extra_info shared with other responses.
        ConfigError: a setting is unknown or invalid, or rows need a judge and none is configured.
        BridgeConnectionError: the server could not be reached or did not answer in time.
    """
    settings, judge, router = call_settings(kwargs)
    sample = await _sample(settings, judge, data_source, solution_str, ground_truth, extra_info)
    rewarder = await shared_rewarder(settings, call_endpoints(settings, router.address, router.model))
    return await _coalescer(rewarder).submit("all", sample)


def compute_score_sync(
    data_source: Any, solution_str: str, ground_truth: Any, extra_info: dict[str, Any] | None = None, **kwargs: Any
) -> dict[str, float | int]:
    """``compute_score`` for callers that do not await (verl's legacy naive reward manager): blocks
    on one request, on this process's private event-loop thread.

    Raises:
        RuntimeError: called from a running event loop (await ``compute_score`` there).
        RowError, ConfigError, BridgeConnectionError: as ``compute_score``.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError("compute_score_sync blocks; in a running event loop, await compute_score instead")
    settings, judge, router = call_settings(kwargs)

    async def one() -> dict[str, float | int]:
        sample = await _sample(settings, judge, data_source, solution_str, ground_truth, extra_info)
        rewarder = await shared_rewarder(settings, call_endpoints(settings, router.address, router.model))
        [outcome] = await rewarder.score_each([sample])
        if isinstance(outcome, (RowError, ConfigError)):
            raise outcome
        return outcome

    return shared_loop_thread().run(one())


