"""The legacy batch reward manager (``verl/workers/reward_manager/batch.py``), as RuscaRL and the
official GEAR repository use it: ``compute_score_batched`` scores a whole list in one request.

Configure it with::

    reward_model.reward_manager=batch \\
    custom_reward_function.path=pkg://gear_bridge.verl.batch \\
    custom_reward_function.name=compute_score_batched \\
    +reward_model.reward_kwargs.aggregator=gear
"""

from __future__ import annotations

import asyncio
from typing import Any, Sequence

from ..exceptions import RowError
from ..judge import CallJudgments, Judge, JudgeCall
from ..rows import parse_row
from ..scoring import SCORE_KEYS, ScoreRequest
from ..settings import Settings
from ..sync.loop_thread import shared_loop_thread
from .shared import settings_from_kwargs, shared_scorer

__all__ = ["SCORE_KEYS", "compute_score_batched"]


def compute_score_batched(
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[dict[str, Any] | None],
    **kwargs: Any,
) -> list[dict[str, float | int]]:
    """Scores every response of a batch with one ``rubric.scoreColumns`` / ``host.scoreBatch`` request.

    Blocking: runs on this process's private event-loop thread.

    Args:
        data_sources: one per response (VERL passes a numpy array).
        solution_strs: the decoded responses.
        ground_truths: one per response.
        extra_infos: one per response, each with ``"gear"`` and, for the default judge, ``"gear_judgments"``.
        **kwargs: VERL's ``reward_kwargs``: settings of :mod:`gear_bridge.settings` and ``judge``.

    Returns:
        One dict per response, in order, each with the keys of ``compute_score``.

    Raises:
        RowError: a row or judgment is malformed (naming ``extra_infos[i]...``), or the lists differ in length.
        ConfigError: a setting is unknown or invalid.
        BridgeConnectionError: the server could not be reached or did not answer in time.
    """
    settings, judge = settings_from_kwargs(kwargs)
    count = len(solution_strs)
    for name, values in (("data_sources", data_sources), ("ground_truths", ground_truths), ("extra_infos", extra_infos)):
        if len(values) != count:
            raise RowError((name,), f"has {len(values)} entries for {count} solution_strs")
    return shared_loop_thread().run(_score_all(settings, judge, data_sources, solution_strs, ground_truths, extra_infos))


async def _score_all(
    settings: Settings,
    judge: Judge,
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[dict[str, Any] | None],
) -> list[dict[str, float | int]]:
    calls = []
    for index, (extra_info, response) in enumerate(zip(extra_infos, solution_strs)):
        if not isinstance(response, str):
            raise RowError(("solution_strs", index), f"must be the decoded response text, got {type(response).__name__}")
        row = parse_row(extra_info, ("extra_infos", index))
        assert extra_info is not None
        calls.append(JudgeCall(row, response, extra_info, data_sources[index], ground_truths[index], ("extra_infos", index)))
    default_judge = isinstance(judge, CallJudgments)
    if isinstance(judge, CallJudgments):
        judgments = [judge.read(call) for call in calls]  # no task per response for the default judge
    else:
        judgments = await asyncio.gather(*(judge.judge(call) for call in calls))
    requests = [
        ScoreRequest(
            call.row,
            call.response,
            judgment,
            call.path,
            (*call.path, settings.judgments_key) if default_judge else ("judgments", index),
        )
        for index, (call, judgment) in enumerate(zip(calls, judgments))
    ]
    scorer = await shared_scorer(settings)
    scores = await scorer.score(requests, aggregator=settings.aggregator, options=settings.options, host=settings.host)
    return [score.fields() for score in scores]
