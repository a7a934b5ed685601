"""Rewards for VERL samples: judgments that came with the row, or the service's LLM judge.

A :class:`Sample` whose ``judgment`` is set is scored by :class:`~gear_bridge.scoring.Scorer`
(``rubric.scoreColumns`` / ``host.scoreBatch``); one whose ``judgment`` is None is judged and
scored by the service in one ``judge.scoreBatch`` (the server's own judge, or the ``endpoints``
of the call: verl's reward router, or ``judge_url`` against a server started elsewhere).

Every result carries the same keys (:data:`REWARD_KEYS`, plus :data:`METRIC_KEYS` with
``metrics`` on), so verl's logger shows them per step: the reward, the native reward, the gear,
flat and hard rewards of the same judgments, and what the judge did (failed criteria, requests,
cache hits, latency).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..asyncio.client import AsyncClient
from ..exceptions import ConfigError, InvalidParams, PathPart, RowError
from ..fcp import FcpTally
from ..rows import GearRow, Judgment
from ..scoring import _ITEM_OVERHEAD, Score, Scorer, ScoreRequest, also_of, item_error, json_bytes, server_limits, split_chunks
from ..settings import Settings
from .coalescer import GroupCoalescer

__all__ = ["REWARD_KEYS", "METRIC_KEYS", "JUDGE_CALL_TIMEOUT", "DEFAULT_JUDGE_MAX_CONCURRENT", "Sample", "Rewarder", "call_endpoints"]

logger = logging.getLogger("gear_bridge.verl.rewarder")

#: The keys of every result, in order (verl builds its arrays from the first result's keys).
REWARD_KEYS = ("score", "native_score", "num_criteria", "unread_judgments", "judged", "judge_failed_criteria", "judge_requests",
               "judge_cache_hits", "judge_latency_ms")
#: With ``metrics`` on: the reward of the same judgments under each of these aggregators.
METRIC_KEYS = ("gear_reward", "flat_reward", "hard_reward")
_METRIC_AGGREGATORS = {"gear_reward": "gear", "flat_reward": "flat", "hard_reward": "hard"}

#: How long a ``judge.scoreBatch`` may take (an LLM judges every criterion of every response).
JUDGE_CALL_TIMEOUT = 3600.0

#: The service's requests in flight per judge endpoint when ``judge_max_concurrent`` is unset
#: (judge/transport/endpoint-config.ts; a test checks the two agree through ``judge.info``).
DEFAULT_JUDGE_MAX_CONCURRENT = 32

#: Result fields of judge.scoreBatch the glue does not read (it reads rewards, counts and stats):
#: most of a reply's bytes, with an LLM's explanation for every criterion.
_JUDGE_OMIT = ("judgments", "extras", "outputs")


@dataclass(frozen=True)
class Sample:
    """One response to reward.

    Attributes:
        row: the parsed rubric spec.
        response: the response text.
        judgment: its judgments, or None for the service's judge to make them.
        path: where the row's ``extra_info`` sits, for errors.
        judgment_path: where the judgments came from, for errors.
    """

    row: GearRow
    response: str
    judgment: Judgment | None
    path: tuple[PathPart, ...] = ("extra_info",)
    judgment_path: tuple[PathPart, ...] = ("extra_info", "gear_judgments")

    def request(self) -> ScoreRequest:
        return ScoreRequest(self.row, self.response, self.judgment if self.judgment is not None else (), self.path, self.judgment_path)


def call_endpoints(settings: Settings, router_address: str | None, router_model: str | None) -> list[dict[str, Any]] | None:
    """The ``endpoints`` a ``judge.scoreBatch`` names, or None for the server's own judge.

    ``judge_url`` with an embedded server: None (that server was started with them, and with the
    judge's cache and timeout). ``judge_url`` with a server at ``url``: the URLs. Otherwise verl's
    reward router (``reward_router_address``, when verl runs a reward model), unless
    ``reward_router`` is off.
    """
    shared: dict[str, Any] = {}
    if settings.judge_max_concurrent is not None:
        shared["maxConcurrent"] = settings.judge_max_concurrent
    if settings.judge_url is not None:
        if settings.url is None:
            return None
        if settings.judge_model is not None:
            shared["model"] = settings.judge_model
        if settings.judge_api_key is not None:
            shared["apiKey"] = settings.judge_api_key
        for name, key in (("judge_rpm", "rpm"), ("judge_tpm", "tpm")):
            value = getattr(settings, name)
            if value is not None:
                shared[key] = value
        return [{"url": url, **shared} for url in settings.judge_url]
    if router_address is not None and settings.reward_router:
        address = router_address if "://" in router_address else f"http://{router_address}"
        model = settings.reward_router_model or router_model
        return [{"url": f"{address.rstrip('/')}/v1", **({"model": model} if model else {}), **shared}]
    return None


def _fields(score: Score, judged: Mapping[str, Any] | None, metrics: Mapping[str, float] | None) -> dict[str, float | int]:
    stats = judged.get("judge", {}).get("stats", {}) if judged is not None else {}
    out: dict[str, float | int] = {
        "score": score.reward,
        "native_score": score.native_reward,
        "num_criteria": len(score.effective),
        "unread_judgments": score.unread_judgments,
        "judged": 1 if judged is not None else 0,
        "judge_failed_criteria": int(judged.get("failedCriteria", 0)) if judged is not None else 0,
        "judge_requests": int(stats.get("requests", 0)),
        "judge_cache_hits": int(stats.get("cacheHits", 0)),
        "judge_latency_ms": float(stats.get("latencyMs", 0.0)),
    }
    if metrics is not None:
        for key in METRIC_KEYS:
            out[key] = metrics[key]
    return out


class Rewarder:
    """Rewards samples through one client (the running loop's), under one set of settings.

    Args:
        scorer: the loop's scorer (its client and rubric registry).
        settings: aggregator, options, judge options, metrics.
        endpoints: the judge endpoints of ``judge.scoreBatch`` calls (None: the server's judge).
    """

    def __init__(self, scorer: Scorer, settings: Settings, endpoints: Sequence[Mapping[str, Any]] | None) -> None:
        self.scorer = scorer
        self.client: AsyncClient = scorer.client
        self.settings = settings
        self.endpoints = [dict(e) for e in endpoints] if endpoints is not None else None
        #: The coalescer of single-response calls (``reward_fn.compute_score``) on this rewarder's loop.
        self.single_calls: GroupCoalescer[Sample, dict[str, float | int]] | None = None
        #: Whether the hint about judge_max_concurrent was logged (once per rewarder); the judge
        #: calls in progress, and the requests of the calls that overlapped since none was.
        self.concurrency_hinted = False
        self._judging = 0
        self._overlapping_requests = 0

    async def score_each(self, samples: Sequence[Sample], fcp: FcpTally | None = None) -> list[dict[str, float | int] | RowError | ConfigError]:
        """Every sample's result, or the error of its own row (the others are still rewarded).

        ``fcp`` gathers the FCP reports of the rubric rows' scoring requests (see :class:`FcpTally`).

        Raises:
            ConfigError: a setting the server rejected, or no judge for samples that need one.
            BridgeConnectionError: the server could not be reached or did not answer in time.
        """
        out: list[dict[str, float | int] | RowError | ConfigError | None] = [None] * len(samples)
        given = [i for i, s in enumerate(samples) if s.judgment is not None]
        to_judge = [i for i, s in enumerate(samples) if s.judgment is None]
        jobs = []
        if given:
            jobs.append(self._score_given(samples, given, out, fcp))
        if to_judge:
            jobs.append(self._judge(samples, to_judge, out))
        await asyncio.gather(*jobs)
        done: list[dict[str, float | int] | RowError | ConfigError] = []
        for outcome in out:
            assert outcome is not None
            done.append(outcome)
        return done

    def _wanted(self, free: Sequence[str]) -> list[str]:
        """The metric aggregators the request must also compute (the rest are known already)."""
        if not self.settings.metrics:
            return []
        return [a for a in _METRIC_AGGREGATORS.values() if a != self.settings.aggregator and a not in free]

    def _metrics(self, score: Score, flat_is_native: bool) -> dict[str, float] | None:
        """The gear / flat / hard rewards of one response's judgments (one request gave them all)."""
        if not self.settings.metrics:
            return None
        metrics: dict[str, float] = {}
        for key, aggregator in _METRIC_AGGREGATORS.items():
            if aggregator == self.settings.aggregator:
                metrics[key] = score.reward
            elif aggregator == "flat" and flat_is_native:
                metrics[key] = score.native_reward
            else:
                value = score.also.get(aggregator)
                metrics[key] = float("nan") if value is None else value
        return metrics

    async def _score_given(self, samples: Sequence[Sample], indices: list[int],
                           out: list[dict[str, float | int] | RowError | ConfigError | None], fcp: FcpTally | None = None) -> None:
        settings = self.settings
        # Rubric rows return the flat reward with every request; host rows return their native one.
        groups = [[i for i in indices if not samples[i].row.is_host], [i for i in indices if samples[i].row.is_host]]
        sent = [(group, free) for group, free in zip(groups, (("flat",), ())) if group]
        answers = await asyncio.gather(*(
            self.scorer.score_each([samples[i].request() for i in group], aggregator=settings.aggregator, options=settings.options,
                                   host=settings.host, also=self._wanted(free), fcp=fcp)
            for group, free in sent
        ))
        for (group, free), answer in zip(sent, answers):
            flat_is_native = "flat" in free
            for index, score in zip(group, answer):
                out[index] = _fields(score, None, self._metrics(score, flat_is_native)) if isinstance(score, Score) else score

    @staticmethod
    def _check_judgeable(sample: Sample) -> None:
        """Raises RowError when the service's judge cannot judge the sample's row."""
        if not sample.row.is_host:
            raise RowError(
                sample.judgment_path,
                f'missing: judge scores {{"p": [...], "d": [...]}} for this response. A "{sample.row.format}" row holds the '
                "rubric only, not the prompt an LLM judge needs: give the judgments, or convert the data to a host "
                "format the judge can read (python -m gear_bridge.convert healthbench ... --format ruscarl|merf|gear)",
            )

    def _judge_items(self, samples: Sequence[Sample], indices: list[int]) -> tuple[list[dict[str, Any]], list[Mapping[str, Any]]]:
        """The items of a ``judge.scoreBatch``, each naming its row in the returned rows by index:
        a GRPO group's responses share a row, which then travels once, not once per response."""
        items: list[dict[str, Any]] = []
        rows: list[Mapping[str, Any]] = []
        row_index: dict[str, int] = {}
        for index in indices:
            sample = samples[index]
            key = sample.row.key
            k = row_index.get(key)
            if k is None:
                k = row_index[key] = len(rows)
                rows.append(sample.row.content)
            items.append({"host": self.settings.host or sample.row.format, "rowIndex": k, "response": sample.response})
        return items, rows

    async def _judge_chunked(self, items: list[dict[str, Any]], rows: list[Mapping[str, Any]], aggregator: str, also: Sequence[str]) -> list[dict[str, Any]]:
        """``judge.scoreBatch`` in as few requests as the server's limits allow, sent together; each
        request carries the rows its items name, once. The results in the items' order."""
        settings = self.settings
        envelope = {"aggregator": aggregator, "options": settings.options, "judge": settings.judge_options, "endpoints": self.endpoints,
                    "alsoAggregators": list(also), "omit": _JUDGE_OMIT}
        max_items, budget = await server_limits(self.client, envelope)
        row_bytes = [json_bytes(row) if budget is not None else 0 for row in rows]
        entries = [(str(item["rowIndex"]), row_bytes[item["rowIndex"]],
                    _ITEM_OVERHEAD + len(item["host"]) + (json_bytes(item["response"]) if budget is not None else 0)) for item in items]
        requests = []
        for chunk in split_chunks(entries, max_items, budget):
            named: dict[int, int] = {}
            chunk_items = []
            for position in chunk:
                item = items[position]
                index = named.setdefault(item["rowIndex"], len(named))
                chunk_items.append({**item, "rowIndex": index})
            chunk_rows = [rows[k] for k in named]
            requests.append(self._judge_request(chunk_items, chunk_rows, _JUDGE_OMIT, aggregator, also))
        answers = await asyncio.gather(*requests)
        return [result for answer in answers for result in answer]

    async def _judge_request(self, items: list[dict[str, Any]], rows: list[Mapping[str, Any]] | None, omit: Sequence[str] | None,
                             aggregator: str, also: Sequence[str]) -> list[dict[str, Any]]:
        settings = self.settings
        try:
            return await self.client.judge_score_batch(
                items,
                aggregator=aggregator,
                options=settings.options,
                judge=settings.judge_options,
                endpoints=self.endpoints,
                timeout=None if settings.timeout is None else max(settings.timeout, JUDGE_CALL_TIMEOUT),
                also_aggregators=list(also) or None,
                rows=rows,
                omit=omit,
            )
        except InvalidParams as error:
            head = error.path[:1]
            if head == ("endpoints",):
                raise ConfigError(
                    ("judge_url",),
                    "no judge: these rows have no judgments and the gear server has no judge endpoints; set judge_url "
                    "(GEAR_JUDGE_URL) to your OpenAI-compatible judge servers, or enable verl's reward model "
                    "(reward.reward_model.enable=True) so its reward_router_address is used",
                ) from None
            if head == ("judge",):
                raise ConfigError(("judge_options", *error.path[1:]), error.message) from None
            if head in (("aggregator",), ("options",)):
                raise ConfigError(error.path, error.message) from None
            raise

    async def _judge(
        self, samples: Sequence[Sample], indices: list[int], out: list[dict[str, float | int] | RowError | ConfigError | None]
    ) -> None:
        settings = self.settings
        sendable: list[int] = []
        for index in indices:
            try:
                self._check_judgeable(samples[index])
                sendable.append(index)
            except RowError as error:
                out[index] = error
        if not sendable:
            return
        items, rows = self._judge_items(samples, sendable)
        # The other aggregators' rewards of the same verdicts come back in each result's "also".
        wanted = self._wanted(())
        self._judging += 1
        try:
            results = await self._judge_chunked(items, rows, settings.aggregator, wanted)
        finally:
            self._judging -= 1
        self._hint_concurrency(results)
        failed_criteria = failed_requests = 0
        for index, result in zip(sendable, results):
            sample = samples[index]
            if "error" in result:
                out[index] = item_error(sample.request(), result["error"])
                continue
            stats = result.get("judge", {}).get("stats", {})
            failed_criteria += int(result.get("failedCriteria", 0))
            failed_requests += int(stats.get("failedRequests", 0))
            also = also_of(result, wanted)
            score = Score(float(result["reward"]), float(result["nativeReward"]), str(result["method"]), tuple(result["effective"]), 0, also)
            out[index] = _fields(score, result, self._metrics(score, False))
        if failed_criteria or failed_requests:
            policy = (settings.judge_options or {}).get("onJudgeFailure", "pessimistic")
            logger.warning(
                "judge: %d criteria of %d responses could not be read (%d requests failed); scored by the %s policy "
                "(against the response), counted in reward_extra_info judge_failed_criteria",
                failed_criteria, len(sendable), failed_requests, policy,
            )

    def _hint_concurrency(self, results: Sequence[Mapping[str, Any]]) -> None:
        """Warns once when the requests of overlapping judge calls (a chunk's, sent in one or more
        calls) outnumbered the default limit of requests in flight, so they queued behind it.

        The default (32 per endpoint, the official GEAR scripts') leaves most of a vLLM or SGLang
        judge's slots idle (bench/RESULTS.md). Not when the user set the limit, nor for a server's
        own judge started elsewhere (its limit is its own).
        """
        settings = self.settings
        if self.concurrency_hinted or settings.judge_max_concurrent is not None:
            return
        endpoints = len(settings.judge_url) if settings.judge_url is not None else len(self.endpoints or ())
        self._overlapping_requests += sum(int(r.get("judge", {}).get("stats", {}).get("requests", 0)) for r in results if "error" not in r)
        if self._judging > 0:
            return  # an overlapping call is still out: its requests count too
        requests, self._overlapping_requests = self._overlapping_requests, 0
        if endpoints == 0 or requests <= DEFAULT_JUDGE_MAX_CONCURRENT * endpoints:
            return
        self.concurrency_hinted = True
        logger.warning(
            "judge: %d requests went at most %d at a time to each of %d endpoint(s) (judge_max_concurrent is unset); "
            "a judge server with more slots (vLLM --max-num-seqs, SGLang --max-running-requests) sits partly idle "
            "while the step waits: set judge_max_concurrent (GEAR_JUDGE_MAX_CONCURRENT) to its slots per endpoint",
            requests, DEFAULT_JUDGE_MAX_CONCURRENT, endpoints,
        )
