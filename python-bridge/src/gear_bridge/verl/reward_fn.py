"""VERL reward functions: ``compute_score`` (the 0.9.x reward loop) and ``compute_score_sync``.

Reward loop (verl >= 0.7)::

    reward.custom_reward_function.path=pkg://gear_bridge.verl.reward_fn \\
    reward.custom_reward_function.name=compute_score

The legacy (non-async) naive manager calls its function without awaiting it, so it takes
``compute_score_sync`` (``custom_reward_function.name=compute_score_sync``).

VERL merges ``reward_kwargs`` into every call's keyword arguments; every setting of
:mod:`gear_bridge.settings` may be given there or in the environment. A response whose judgments
came with the row is scored in the calling process (:mod:`gear_bridge.in_process`: the same
rewards as the server's, no round trip) unless it needs the server; the calls that do, on one
event loop in one burst (no 3 loop turns without a call, at most ``group_wait`` from the first),
go to the server together: one request for all of them, instead of one per call.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..exceptions import ConfigError, RowError
from ..in_process import in_process_scorer
from ..judge import Judge, JudgeCall
from ..rows import GearRow, Judgment, parse_row
from ..settings import Settings
from ..sync.loop_thread import shared_loop_thread
from .coalescer import IDLE_TURNS, GroupCoalescer
from .rewarder import REWARD_KEYS, Rewarder, Sample, call_endpoints
from .row_judgments import known_row_fields, row_judgments, shared_row_guard
from .shared import RouterInfo, call_settings, shared_rewarder

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


def _given(settings: Settings, solution_str: Any, extra_info: Any) -> tuple[GearRow, Judgment | None]:
    """The call's row and the row's own judgments (None: the service's judge makes them)."""
    if not isinstance(solution_str, str):
        raise RowError(("solution_str",), f"must be the decoded response text, got {type(solution_str).__name__}")
    row = parse_row(extra_info)
    assert extra_info is not None
    judgment = row_judgments(extra_info, row, settings, _PATH)
    if judgment is not None:
        shared_row_guard().check(extra_info, solution_str, _PATH, settings.judgments_key)
    return row, judgment


def _given_sample(settings: Settings, solution_str: str, row: GearRow, judgment: Judgment | None) -> Sample:
    return Sample(row, solution_str, judgment, ("extra_info",), ("extra_info", settings.judgments_key))


async def _judged_sample(judge: Judge, data_source: Any, solution_str: Any, ground_truth: Any, extra_info: Any) -> Sample:
    """The call's response judged by a Python judge (``judge`` in the settings)."""
    if not isinstance(solution_str, str):
        raise RowError(("solution_str",), f"must be the decoded response text, got {type(solution_str).__name__}")
    row = parse_row(extra_info)
    made = await judge.judge(JudgeCall(row, solution_str, extra_info, data_source, ground_truth, ("extra_info",)))
    return Sample(row, solution_str, made, ("extra_info",), ("judgment",))


def _scored_or_sample(settings: Settings, solution_str: Any, extra_info: Any) -> dict[str, float | int] | Sample:
    """A response without a Python judge that known_row_fields did not take: its fields when scored
    in this process, else the sample the server scores (with the row's judgments, or none for the
    service's judge to make)."""
    row, judgment = _given(settings, solution_str, extra_info)
    fields = _in_process(settings, row, judgment)
    if fields is not None:
        return fields
    return _given_sample(settings, solution_str, row, judgment)


def _in_process(settings: Settings, row: GearRow, judgment: Judgment | None) -> dict[str, float | int] | None:
    """The response's reward computed here when it equals the server's (see gear_bridge.in_process)."""
    if not settings.in_process or judgment is None:
        return None
    return in_process_scorer(settings).fields(row, judgment)


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
    call = call_settings(kwargs)
    if call.judge is None:
        fields = known_row_fields(call.known, call.judgments_key, solution_str, extra_info, _PATH)
        if fields is not None:
            return fields
    settings, judge, router = call.settings, call.judge, call.router
    if judge is None:
        given = _scored_or_sample(settings, solution_str, extra_info)
        if isinstance(given, dict):
            return given
        sample = given
    else:
        sample = await _judged_sample(judge, data_source, solution_str, ground_truth, extra_info)
        fields = _in_process(settings, sample.row, sample.judgment)
        if fields is not None:
            return fields
    rewarder = await shared_rewarder(settings, call_endpoints(settings, router.address, router.model))
    return await _coalescer(rewarder).submit("all", sample)


def compute_score_sync(
    data_source: Any, solution_str: str, ground_truth: Any, extra_info: dict[str, Any] | None = None, **kwargs: Any
) -> dict[str, float | int]:
    """``compute_score`` for callers that do not await (verl's legacy naive reward manager).

    A response whose judgments the row carries is scored in this thread when the in-process
    scorer can (see :mod:`gear_bridge.in_process`); otherwise the call blocks on one request, on
    this process's private event-loop thread.

    Raises:
        RuntimeError: called from a running event loop (await ``compute_score`` there).
        RowError, ConfigError, BridgeConnectionError: as ``compute_score``.
    """
    # asyncio's own C check (get_running_loop raises where none runs: an exception per response).
    if asyncio._get_running_loop() is not None:
        raise RuntimeError("compute_score_sync blocks; in a running event loop, await compute_score instead")

    call = call_settings(kwargs)
    if call.judge is None:
        fields = known_row_fields(call.known, call.judgments_key, solution_str, extra_info, _PATH)
        if fields is not None:
            return fields  # no round trip: what makes this manager's step cost that of a plain function
    settings, judge, router = call.settings, call.judge, call.router
    given: Sample | None = None
    if judge is None:
        scored = _scored_or_sample(settings, solution_str, extra_info)
        if isinstance(scored, dict):
            return scored
        given = scored
    # Its own function: the variables a coroutine closes over become cells at every call of the
    # function that defines it, the usual call too.
    return _blocking(settings, judge, router, given, data_source, solution_str, ground_truth, extra_info)


def _blocking(settings: Settings, judge: Judge | None, router: RouterInfo, given: Sample | None, data_source: Any, solution_str: Any,
              ground_truth: Any, extra_info: Any) -> dict[str, float | int]:
    """compute_score_sync's response that needs the event loop: a Python judge's, or the server's."""

    async def one() -> dict[str, float | int]:
        sample = given
        if sample is None:
            assert judge is not None
            sample = await _judged_sample(judge, data_source, solution_str, ground_truth, extra_info)
            made = _in_process(settings, sample.row, sample.judgment)
            if made is not None:
                return made
        rewarder = await shared_rewarder(settings, call_endpoints(settings, router.address, router.model))
        [outcome] = await rewarder.score_each([sample])
        if isinstance(outcome, (RowError, ConfigError)):
            raise outcome
        return outcome

    return shared_loop_thread().run(one())
