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

import math
from typing import Any, Sequence

from ..exceptions import ConfigError, RowError
from ..fcp import FcpTally
from ..in_process import IN_PROCESS_METHODS, FcpCounter, in_process_scorer
from ..judge import JudgeCall
from ..rubrics import Registration
from ..rows import JudgeScores, parse_row
from ..settings import Settings
from ..sync.loop_thread import shared_loop_thread
from .rewarder import REWARD_KEYS, Rewarder, Sample, call_endpoints
from .row_judgments import row_judgments, shared_row_guard
from .shared import RouterInfo, settings_from_kwargs, shared_rewarder

__all__ = ["REWARD_KEYS", "compute_score_batched"]


def compute_score_batched(
    data_sources: Sequence[Any] | None = None,
    solution_strs: Sequence[str] | None = None,
    ground_truths: Sequence[Any] | None = None,
    extra_infos: Sequence[dict[str, Any] | None] | None = None,
    **kwargs: Any,
) -> list[dict[str, float | int]]:
    """Scores every response of a batch with one request per kind (and one ``judge.scoreBatch``).

    Blocking: runs on this process's private event-loop thread.

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
    settings, judge, router = settings_from_kwargs(kwargs)
    count = len(solution_strs)
    lists = (("data_sources", data_sources), ("ground_truths", ground_truths), ("extra_infos", extra_infos))
    for name, values in lists:
        if values is None or len(values) != count:
            raise RowError((name,), f"has {0 if values is None else len(values)} entries for {count} solution_strs")
    assert data_sources is not None and ground_truths is not None and extra_infos is not None
    return shared_loop_thread().run(_score_all(settings, judge, router, data_sources, solution_strs, ground_truths, extra_infos))


async def _score_all(
    settings: Settings,
    judge: Any,
    router: RouterInfo,
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[dict[str, Any] | None],
) -> list[dict[str, float | int]]:
    samples: list[Sample] = []
    guard = shared_row_guard()
    for index, (extra_info, response) in enumerate(zip(extra_infos, solution_strs)):
        if not isinstance(response, str):
            raise RowError(("solution_strs", index), f"must be the decoded response text, got {type(response).__name__}")
        path = ("extra_infos", index)
        row = parse_row(extra_info, path)
        assert extra_info is not None
        if judge is not None:
            call = JudgeCall(row, response, extra_info, data_sources[index], ground_truths[index], path)
            samples.append(Sample(row, response, await judge.judge(call), path, ("judgments", index)))
            continue
        judgment = row_judgments(extra_info, row, settings, path)
        if judgment is not None:
            guard.check(extra_info, response, path, settings.judgments_key)
        samples.append(Sample(row, response, judgment, path, (*path, settings.judgments_key)))
    # Judged responses the in-process scorer can score are scored here (with their share of the
    # step's FCP figure); the rest go to the server, which is started only if something does.
    aggregator = _fcp_aggregator(settings)
    counter = FcpCounter([aggregator]) if settings.metrics and aggregator in IN_PROCESS_METHODS else None
    local: list[dict[str, float | int] | None] = [None] * len(samples)
    if settings.in_process:
        scorer = in_process_scorer(settings)
        for index, sample in enumerate(samples):
            local[index] = scorer.fields(sample.row, sample.judgment, counter if _fcp_case(sample) else None)
    rest = [index for index, made in enumerate(local) if made is None]
    tally = FcpTally([aggregator])
    if counter is not None and counter.responses:
        tally.add(counter.report())
    outcomes: list[dict[str, float | int] | RowError | ConfigError | None] = list(local)
    rewarder: Rewarder | None = None
    if rest:
        rewarder = await shared_rewarder(settings, call_endpoints(settings, router.address, router.model))
        sent = await rewarder.score_each([samples[i] for i in rest], fcp=tally if settings.metrics else None)
        for index, outcome in zip(rest, sent):
            outcomes[index] = outcome
    step: dict[str, float] = {}
    if settings.metrics:
        scored = sum(1 for s, o in zip(samples, outcomes) if _fcp_case(s) and isinstance(o, dict))
        if tally.responses == scored and (tally.reports or scored == 0):
            step = {"fcp_leakage": tally.leakage(aggregator)}  # from the scoring itself (here, or its requests)
        else:
            # Scored another way (an older server, or responses with and without decisions): after
            # the scoring, whose request registered the step's new rubrics, FCP names them by id.
            if rewarder is None:
                rewarder = await shared_rewarder(settings, call_endpoints(settings, router.address, router.model))
            step = {"fcp_leakage": await _fcp_leakage(rewarder, samples)}
    results: list[dict[str, float | int]] = []
    for result in outcomes:
        if isinstance(result, Exception):
            raise result
        assert result is not None
        results.append({**result, **step})
    return results


def _fcp_aggregator(settings: Settings) -> str:
    """The aggregator whose L_FCP a step reports: the configured one (``auto`` resolves per rubric,
    FCP takes a method: ``gear``)."""
    return "gear" if settings.aggregator == "auto" else settings.aggregator


def _fcp_case(sample: Sample) -> bool:
    """A response the step's FCP covers: a rubric row with judge scores."""
    return not sample.row.is_host and isinstance(sample.judgment, JudgeScores)


async def _fcp_leakage(rewarder: Rewarder, samples: Sequence[Sample]) -> float:
    """L_FCP of the step's rubric rows under the configured aggregator (``diagnostics.fcp``)."""
    items = []
    aggregator = _fcp_aggregator(rewarder.settings)
    scored = [s for s in samples if _fcp_case(s)]
    # Known from the scoring request (none is sent); a rubric evicted since is registered again.
    registrations = await rewarder.scorer.registry.resolve_many([s.row for s in scored])
    for sample, registration in zip(scored, registrations):
        judgment = sample.judgment
        if not isinstance(registration, Registration) or not isinstance(judgment, JudgeScores):
            continue  # a rubric the server rejected: score_each reports it at its row
        scores: dict[str, Any] = {"p": list(judgment.p)}
        if judgment.d is not None:
            scores["d"] = list(judgment.d)
        items.append({"rubricId": registration.rubric_id, "scores": scores})
    if not items:
        return math.nan
    report = await rewarder.client.fcp(items, aggregators=[aggregator], options=rewarder.settings.options)
    return _leakage_of(report, aggregator)


def _leakage_of(report: Any, aggregator: str) -> float:
    """``byAggregator[aggregator].leakage`` of a ``diagnostics.fcp`` report (NaN without leakage cases)."""
    by = report.get("byAggregator") if isinstance(report, dict) else None
    entry = by.get(aggregator) if isinstance(by, dict) else None
    value = entry.get("leakage") if isinstance(entry, dict) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
