"""The legacy batch reward manager (``verl/workers/reward_manager/batch.py``), as RuscaRL and the
official GEAR repository use it on verl <= 0.6: ``compute_score_batched`` scores a whole list in one
request (judged by the service's judge when a row has no judgments).

Configure it with (verl <= 0.6 only: verl >= 0.7's ``main_ppo`` ignores these keys)::

    reward_model.reward_manager=batch \\
    custom_reward_function.path=pkg://gear_bridge.verl.batch \\
    custom_reward_function.name=compute_score_batched

It sees the whole step, so with ``metrics`` on it adds ``fcp_leakage`` (false-credit propagation of the step's
rubric-row judgments under the configured aggregator, the same value on every row; NaN when the
step has no rubric rows) to every result.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..exceptions import ConfigError, RowError
from ..fcp import FcpTally
from ..judge import JudgeCall
from ..rows import parse_row
from ..sync.loop_thread import shared_loop_thread
from .rewarder import REWARD_KEYS, Sample, call_endpoints
from .row_judgments import row_judgments, shared_row_guard
from .shared import call_settings, shared_rewarder

__all__ = ["REWARD_KEYS", "compute_score_batched"]


def compute_score_batched(data_sources: Sequence[Any] | None = None, solution_strs: Sequence[str] | None = None,
                          ground_truths: Sequence[Any] | None = None, extra_infos: Sequence[dict[str, Any] | None] | None = None,
                          **kwargs: Any) -> list[dict[str, float | int]]:
    """Scores every response of a batch with one request per kind (and one ``judge.scoreBatch``).

    Blocking: the requests run on this process's private event-loop thread.

    Args:
        data_sources: one per response (VERL passes a numpy array).
        solution_strs: the decoded responses.
        ground_truths: one per response.
        extra_infos: one per response, each with ``"gear"`` (and ``"gear_judgments"`` unless judged).
        **kwargs: VERL's ``reward_kwargs``: settings of :mod:`gear_bridge.settings` and ``judge``.

    Returns:
        One dict per response, in order, each with the keys of ``compute_score`` and ``fcp_leakage``.

    Raises:
        ConfigError: called one response at a time (verl's reward loop: use ``compute_score``), or a
            setting is unknown or invalid.
        RowError: a row or judgment is malformed (naming ``extra_infos[i]...``), or the lists differ in length.
        BridgeConnectionError: the server could not be reached or did not answer in time.
    """
    if solution_strs is None or "solution_str" in kwargs:
        raise ConfigError(
            ("custom_reward_function", "name"),
            "compute_score_batched takes a whole batch (verl <= 0.6's legacy batch manager); verl's reward loop calls "
            "one response at a time: set reward.custom_reward_function.name=compute_score",
        )
    settings, judge, router = call_settings(kwargs)
    count = len(solution_strs)
    for name, values in (("data_sources", data_sources), ("ground_truths", ground_truths), ("extra_infos", extra_infos)):
        if values is None or len(values) != count:
            raise RowError((name,), f"has {0 if values is None else len(values)} entries for {count} solution_strs")
    assert data_sources is not None and ground_truths is not None and extra_infos is not None
    rows = []
    for index, (extra_info, response) in enumerate(zip(extra_infos, solution_strs)):
        if not isinstance(response, str):
            raise RowError(("solution_strs", index), f"must be the decoded response text, got {type(response).__name__}")
        rows.append(parse_row(extra_info, ("extra_infos", index)))
    # FCP is a figure of rubric rows' judge scores: the configured aggregator's (auto resolves to gear).
    aggregator = "gear" if settings.aggregator == "auto" else settings.aggregator

    async def score() -> list[dict[str, float | int]]:
        samples = []
        for index, (extra_info, response, row) in enumerate(zip(extra_infos, solution_strs, rows)):
            path = ("extra_infos", index)
            assert extra_info is not None  # parse_row refused a missing one
            if judge is not None:
                call = JudgeCall(row, response, extra_info, data_sources[index], ground_truths[index], path)
                samples.append(Sample(row, response, await judge.judge(call), path, ("judgments", index)))
                continue
            judgment = row_judgments(extra_info, row, settings, path)
            if judgment is not None:
                shared_row_guard().check(extra_info, response, path, settings.judgments_key)
            samples.append(Sample(row, response, judgment, path, (*path, settings.judgments_key)))
        rewarder = await shared_rewarder(settings, call_endpoints(settings, router.address, router.model))
        tally = FcpTally([aggregator])
        results = await rewarder.score_each(samples, fcp=tally if settings.metrics else None)
        done: list[dict[str, float | int]] = []
        for result in results:
            if isinstance(result, Exception):
                raise result
            if settings.metrics:
                result["fcp_leakage"] = tally.leakage(aggregator)
            done.append(result)
        return done

    return shared_loop_thread().run(score())
