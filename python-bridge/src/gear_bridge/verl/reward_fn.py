"""VERL 0.9.x reward loop: ``compute_score`` as a custom reward function.

Configure it with::

    reward.custom_reward_function.path=pkg://gear_bridge.verl.reward_fn \\
    reward.custom_reward_function.name=compute_score \\
    +reward.custom_reward_function.reward_kwargs.aggregator=gear

VERL merges ``reward_kwargs`` into every call's keyword arguments; every setting of
:mod:`gear_bridge.settings` may be given there or in the environment.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import RowError
from ..judge import CallJudgments, JudgeCall
from ..rows import parse_row
from ..scoring import SCORE_KEYS, ScoreRequest
from .shared import settings_from_kwargs, shared_scorer

__all__ = ["SCORE_KEYS", "compute_score"]


async def compute_score(
    data_source: Any, solution_str: str, ground_truth: Any, extra_info: dict[str, Any] | None = None, **kwargs: Any
) -> dict[str, float | int]:
    """Scores one response against the rubric in ``extra_info["gear"]``.

    Args:
        data_source: the row's data source (passed to the judge).
        solution_str: the decoded response.
        ground_truth: the row's ``reward_model["ground_truth"]`` (passed to the judge; unused by default).
        extra_info: the row's extra_info with ``"gear"`` (the rubric) and, for the default judge,
            ``"gear_judgments"`` (this response's judgments).
        **kwargs: settings (``aggregator``, ``options``, ``url``, ``timeout``, ... see
            :mod:`gear_bridge.settings`), ``judge``, and VERL's own ``reward_router_address`` /
            ``reward_model_tokenizer`` (ignored).

    Returns:
        ``{"score", "native_score", "num_criteria", "unread_judgments"}``: the same keys for every
        call (VERL builds its arrays from the first call's keys), scalar values.

    Raises:
        RowError: the row or judgment is malformed (naming the field).
        ConfigError: a setting is unknown or invalid.
        BridgeConnectionError: the server could not be reached or did not answer in time.
    """
    settings, judge = settings_from_kwargs(kwargs)
    if not isinstance(solution_str, str):
        raise RowError(("solution_str",), f"must be the decoded response text, got {type(solution_str).__name__}")
    row = parse_row(extra_info)
    assert extra_info is not None
    call = JudgeCall(row, solution_str, extra_info, data_source, ground_truth, ("extra_info",))
    judgment = await judge.judge(call)
    judgment_path = ("extra_info", settings.judgments_key) if isinstance(judge, CallJudgments) else ("judgment",)
    scorer = await shared_scorer(settings)
    [score] = await scorer.score(
        [ScoreRequest(row, solution_str, judgment, ("extra_info",), judgment_path)],
        aggregator=settings.aggregator,
        options=settings.options,
        host=settings.host,
    )
    return score.fields()
