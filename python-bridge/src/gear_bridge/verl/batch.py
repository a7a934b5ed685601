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

from typing import Any, Mapping, Sequence

from ..exceptions import ConfigError, RowError
from ..fcp import FcpTally
from ..in_process import IN_PROCESS_METHODS, FcpCounter, InProcessScorer, in_process_scorer
from ..judge import JudgeCall
from ..rubrics import Registration
from ..rows import GearRow, JudgeScores, parse_row
from ..settings import Settings
from ..sync.loop_thread import shared_loop_thread
from .rewarder import REWARD_KEYS, Rewarder, Sample, call_endpoints
from .row_judgments import known_row_fields, row_judgments, shared_row_guard
from .shared import RouterInfo, call_settings, shared_rewarder

__all__ = ["REWARD_KEYS", "compute_score_batched"]


def compute_score_batched(
    data_sources: Sequence[Any] | None = None,
    solution_strs: Sequence[str] | None = None,
    ground_truths: Sequence[Any] | None = None,
    extra_infos: Sequence[dict[str, Any] | None] | None = None,
    **kwargs: Any,
) -> list[dict[str, float | int]]:
    """Scores every response of a batch: in this thread where the in-process scorer can (see
    :mod:`gear_bridge.in_process`), the rest with one request per kind (and one ``judge.scoreBatch``).

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
    call = call_settings(kwargs)
    settings, judge, router = call.settings, call.judge, call.router
    count = len(solution_strs)
    lists = (("data_sources", data_sources), ("ground_truths", ground_truths), ("extra_infos", extra_infos))
    for name, values in lists:
        if values is None or len(values) != count:
            raise RowError((name,), f"has {0 if values is None else len(values)} entries for {count} solution_strs")
    assert data_sources is not None and ground_truths is not None and extra_infos is not None
    if judge is None:
        # Read every row here, and score what the in-process scorer can: a step of judged rows it
        # reads (the usual case) is done without the event-loop thread or the server.
        aggregator = _fcp_aggregator(settings)
        counter = FcpCounter(aggregator) if settings.metrics and settings.in_process and aggregator in IN_PROCESS_METHODS else None
        results, rest = _given_pass(settings, call.known, solution_strs, extra_infos, counter)
        if not rest:
            return _finish(results, _step_fields(settings, counter, None))
        samples: dict[int, Sample] = rest
    else:
        samples = {}
        results = [None] * count
        counter = None
    return shared_loop_thread().run(_score_rest(settings, judge, router, data_sources, solution_strs, ground_truths, extra_infos,
                                                results, samples, counter))


def _read_row(index: int, extra_info: Any, response: Any) -> tuple[tuple[str, int], GearRow]:
    """Response ``index``'s path (for errors) and parsed row; RowError naming the field."""
    if not isinstance(response, str):
        raise RowError(("solution_strs", index), f"must be the decoded response text, got {type(response).__name__}")
    path = ("extra_infos", index)
    return path, parse_row(extra_info, path)


def _given_pass(
    settings: Settings, known: InProcessScorer | None, solution_strs: Sequence[str], extra_infos: Sequence[dict[str, Any] | None],
    counter: FcpCounter | None,
) -> tuple[list[dict[str, float | int] | None], dict[int, Sample]]:
    """Every response's row and judgments read (RowError at the first bad one); the ones the
    in-process scorer ``known`` takes are scored, the others returned as samples for the server, by index."""
    results: list[dict[str, float | int] | None] = [None] * len(solution_strs)
    rest: dict[int, Sample] = {}
    guard = shared_row_guard()
    key = settings.judgments_key
    for index, (extra_info, response) in enumerate(zip(extra_infos, solution_strs)):
        made = known_row_fields(known, key, response, extra_info, ("extra_infos", index), counter)
        if made is not None:
            results[index] = made
            continue
        path, row = _read_row(index, extra_info, response)
        assert extra_info is not None
        judgment = row_judgments(extra_info, row, settings, path)
        if judgment is not None:
            guard.check(extra_info, response, path, key)
            if known is not None:
                fcp_case = counter is not None and not row.is_host and isinstance(judgment, JudgeScores)
                made = known.fields(row, judgment, counter if fcp_case else None)
                if made is not None:
                    results[index] = made
                    continue
        rest[index] = Sample(row, response, judgment, path, (*path, key))
    return results, rest


def _step_fields(settings: Settings, counter: FcpCounter | None, tally: FcpTally | None) -> dict[str, float]:
    """The step's figure: ``fcp_leakage`` of the responses counted here and in the server's reports."""
    if not settings.metrics:
        return {}
    aggregator = _fcp_aggregator(settings)
    combined = tally if tally is not None else FcpTally([aggregator])
    if counter is not None and counter.responses:
        combined.add(counter.report())
    return {"fcp_leakage": combined.leakage(aggregator)}


def _finish(results: Sequence[Any], step: Mapping[str, float]) -> list[dict[str, float | int]]:
    done: list[dict[str, float | int]] = []
    for result in results:
        if isinstance(result, Exception):
            raise result
        assert result is not None
        if step:
            result.update(step)  # each result is this call's own dict
        done.append(result)
    return done


async def _score_rest(
    settings: Settings,
    judge: Any,
    router: RouterInfo,
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[dict[str, Any] | None],
    results: list[Any],
    samples: dict[int, Sample],
    counter: FcpCounter | None,
) -> list[dict[str, float | int]]:
    """The responses the in-process pass left (``samples``), or every response with a Python judge:
    judged (by it, or by the server's judge) and scored by the server."""
    aggregator = _fcp_aggregator(settings)
    if judge is not None:
        for index, (extra_info, response) in enumerate(zip(extra_infos, solution_strs)):
            path, row = _read_row(index, extra_info, response)
            assert extra_info is not None
            call = JudgeCall(row, response, extra_info, data_sources[index], ground_truths[index], path)
            samples[index] = Sample(row, response, await judge.judge(call), path, ("judgments", index))
        if settings.in_process and aggregator in IN_PROCESS_METHODS:
            counter = FcpCounter(aggregator) if settings.metrics else None
            scorer = in_process_scorer(settings)
            for index in list(samples):
                sample = samples[index]
                made = scorer.fields(sample.row, sample.judgment, counter if counter is not None and _fcp_case(sample) else None)
                if made is not None:
                    results[index] = made
                    del samples[index]
    tally = FcpTally([aggregator])
    rewarder: Rewarder | None = None
    if samples:
        rewarder = await shared_rewarder(settings, call_endpoints(settings, router.address, router.model))
        order = list(samples)
        sent = await rewarder.score_each([samples[i] for i in order], fcp=tally if settings.metrics else None)
        for index, outcome in zip(order, sent):
            results[index] = outcome
    step: dict[str, float] = {}
    if settings.metrics:
        # The server's scoring requests report the FCP cases they scored, the in-process counter
        # the others: together, every scored response once.
        sent_cases = [sample for index, sample in samples.items() if _fcp_case(sample) and isinstance(results[index], dict)]
        if tally.responses != len(sent_cases):
            # Scored another way (an older server, or responses with and without decisions): after
            # the scoring, whose request registered the step's new rubrics, FCP names them by id.
            assert rewarder is not None
            tally = FcpTally([aggregator])
            tally.add(await _fcp_report(rewarder, sent_cases))
        step = _step_fields(settings, counter, tally)
    return _finish(results, step)


def _fcp_aggregator(settings: Settings) -> str:
    """The aggregator whose L_FCP a step reports: the configured one (``auto`` resolves per rubric,
    FCP takes a method: ``gear``)."""
    return "gear" if settings.aggregator == "auto" else settings.aggregator


def _fcp_case(sample: Sample) -> bool:
    """A response the step's FCP covers: a rubric row with judge scores."""
    return not sample.row.is_host and isinstance(sample.judgment, JudgeScores)


async def _fcp_report(rewarder: Rewarder, samples: Sequence[Sample]) -> Any:
    """The ``diagnostics.fcp`` report of these rubric rows under the configured aggregator (None
    without any)."""
    items = []
    aggregator = _fcp_aggregator(rewarder.settings)
    # Known from the scoring request (none is sent); a rubric evicted since is registered again.
    registrations = await rewarder.scorer.registry.resolve_many([s.row for s in samples])
    for sample, registration in zip(samples, registrations):
        judgment = sample.judgment
        if not isinstance(registration, Registration) or not isinstance(judgment, JudgeScores):
            continue  # a rubric the server rejected: score_each reports it at its row
        scores: dict[str, Any] = {"p": list(judgment.p)}
        if judgment.d is not None:
            scores["d"] = list(judgment.d)
        items.append({"rubricId": registration.rubric_id, "scores": scores})
    if not items:
        return None
    return await rewarder.client.fcp(items, aggregators=[aggregator], options=rewarder.settings.options)
