"""Scoring parsed rows through one client: registration, batching, re-registration, error paths.

:class:`Scorer` sends canonical / official-gear rows as one ``rubric.scoreColumns`` that refers to
registered rubrics (``rubric.scoreBatch`` items when rubrics go inline or the server lacks it), and
host rows as ``host.scoreBatch`` items naming the batch's distinct rows by index (a GRPO group's
row travels and is parsed once); a list of responses goes out as one request per kind (split only
where the server's ``maxBatchItems`` or ``maxPayloadBytes`` demand it). Rewards under other
aggregators (``also``) come back with the same request (``alsoAggregators``), or from one request
per aggregator on a server without it.
Errors the server reports for an item are raised as :class:`RowError` at the row's own field
(``extra_info.gear.rubric.criteria[2].weight``, ``extra_info.gear_judgments.p[4]``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .asyncio.client import AsyncClient
from .exceptions import ConfigError, InvalidParams, MethodNotFound, PathPart, RowError, UnknownRubric, format_path
from .rows import GEAR_KEY, GearRow, JudgeScores, Judgment
from .protocol import FLOAT64_BASE64, decode_float64, encode_float64
from .rubrics import Registration, RubricRegistry
from .fcp import FcpTally

__all__ = ["SCORE_KEYS", "ScoreRequest", "Score", "Scorer"]

logger = logging.getLogger("gear_bridge.scoring")

#: The keys of every score dict the VERL glue returns, in order (VERL builds arrays from the first).
SCORE_KEYS = ("score", "native_score", "num_criteria", "unread_judgments")

_RESEND_UNKNOWN = 3
#: Stands for "no registration: the rubric travels inline" in the last resort of a batch.
_INLINE = Registration("", "", 0, {})


@dataclass(frozen=True)
class ScoreRequest:
    """One response to score.

    Attributes:
        row: the parsed rubric spec.
        response: the response text (used by host formats).
        judgment: its judgments (scores, or raw judge outputs for hosts).
        path: where the row's ``extra_info`` sits, for errors (``("extra_info",)``).
        judgment_path: where the judgments came from, for errors.
    """

    row: GearRow
    response: str
    judgment: Judgment
    path: tuple[PathPart, ...] = ("extra_info",)
    judgment_path: tuple[PathPart, ...] = ("extra_info", "gear_judgments")


@dataclass(frozen=True)
class Score:
    """One response's result.

    Attributes:
        reward: the reward under the configured aggregator.
        native_reward: the flat reward (canonical, official-gear) or the host's native reward.
        method: the aggregation method used (``auto`` resolves to one).
        effective: per-criterion effective scores, in rubric order.
        unread_judgments: criteria whose judge output could not be read (hosts; 0 otherwise).
        also: the rewards of the same judgments under the ``also`` aggregators asked for (None where
            that aggregator cannot score the rubric, e.g. gear-exact over the server's cost limit).
    """

    reward: float
    native_reward: float
    method: str
    effective: tuple[float, ...]
    unread_judgments: int = 0
    also: Mapping[str, float | None] = field(default_factory=dict)

    def fields(self) -> dict[str, float | int]:
        """The VERL score dict: the same keys (:data:`SCORE_KEYS`) for every row and format."""
        return {
            "score": self.reward,
            "native_score": self.native_reward,
            "num_criteria": len(self.effective),
            "unread_judgments": self.unread_judgments,
        }


def _user_path(request: ScoreRequest, server_path: Sequence[Any]) -> tuple[tuple[PathPart, ...], bool]:
    """Maps a server error path (relative to one item or the register params) to the row's field.

    Returns the path and whether it is an options error (a setting, not the row).
    """
    path = [p for p in server_path if isinstance(p, (str, int))]
    if not path:
        return request.path, False
    head, rest = path[0], tuple(path[1:])
    if head in ("rubric", "reward_model", "row"):
        return (*request.path, GEAR_KEY, request.row.content_field, *rest), False
    if head in ("scores", "judgeOutputs"):
        return (*request.judgment_path, *rest), False
    if head == "options":
        return ("options", *rest), True
    return (*request.path, *path), False


def _detail(message: str, server_path: Sequence[Any]) -> str:
    """The message without the server's own ``path: `` prefix."""
    prefix = format_path([p for p in server_path if isinstance(p, (str, int))]) + ": "
    return message[len(prefix):] if message.startswith(prefix) else message


def _field_error(request: ScoreRequest, server_path: Sequence[Any], message: str) -> RowError | ConfigError:
    path, is_option = _user_path(request, server_path)
    detail = _detail(message, server_path)
    return ConfigError(path, detail) if is_option else RowError(path, detail)


def _item_error(request: ScoreRequest, error_info: Mapping[str, Any]) -> RowError | ConfigError:
    """A ``host.scoreBatch`` or ``judge.scoreBatch`` item's error at the request's own field. The
    server reports it at ``items[i]`` + the field, or, for a shared row, at ``rows[k]`` + the
    field: the item's own row here."""
    path = list(error_info.get("path", []))
    relative = ["row", *path[2:]] if path[:1] == ["rows"] else path[2:]
    return _field_error(request, relative, str(error_info.get("message", "")))


class Scorer:
    """Scores :class:`ScoreRequest` lists through one :class:`AsyncClient` and its rubric registry.

    Args:
        client: an open (or openable) client.
        max_rubrics: rubric ids remembered; None for all.
    """

    def __init__(self, client: AsyncClient, *, max_rubrics: int | None = 10000) -> None:
        self.client = client
        self.registry = RubricRegistry(client, max_rubrics=max_rubrics)
        #: How judge scores travel in rubric.scoreBatch: float64-base64 (exact, cheap), or None for
        #: JSON numbers (chosen automatically when the server does not take the encoding).
        self.encoding: str | None = FLOAT64_BASE64
        #: Registered rubrics go out as one ``rubric.scoreColumns`` (no per-item objects on either
        #: side: about half the time of scoreBatch for a GRPO step); False after a server without it.
        self.columns = True
        #: A step's new rubrics travel inline in its ``rubric.scoreColumns`` (``rubrics``), which
        #: registers them: no ``rubric.registerBatch`` round trip first. False after a server without it.
        self.columns_register = True
        #: Rewards under ``also`` aggregators travel in the scoring request itself, and host rows
        #: once per request (``rows``); False after a server older than both (one request per
        #: aggregator then, each item with its row).
        self.also_in_request = True
        #: A step's FCP report comes with its ``rubric.scoreColumns`` (``fcp``); False after a server without it.
        self.fcp_in_request = True

    async def score(
        self,
        requests: Sequence[ScoreRequest],
        *,
        aggregator: str = "gear",
        options: Mapping[str, Any] | None = None,
        host: str | None = None,
        also: Sequence[str] = (),
    ) -> list[Score]:
        """Scores every request; one ``rubric.scoreColumns`` and/or one ``host.scoreBatch`` request.

        Args:
            requests: the responses.
            aggregator: the aggregator for all of them.
            options: aggregation options for all of them (None: the server's defaults).
            host: a host that replaces the format of host rows (None: each row's own).
            also: other aggregators whose rewards each :class:`Score` carries in ``also``.

        Raises:
            RowError: a row or judgment the server rejected, at its field.
            ConfigError: the server rejected ``options`` or ``aggregator``.
            BridgeConnectionError: no answer could be had.
        """
        scores: list[Score] = []
        for outcome in await self.score_each(requests, aggregator=aggregator, options=options, host=host, also=also):
            if isinstance(outcome, Exception):
                raise outcome
            scores.append(outcome)
        return scores

    async def score_each(
        self,
        requests: Sequence[ScoreRequest],
        *,
        aggregator: str = "gear",
        options: Mapping[str, Any] | None = None,
        host: str | None = None,
        also: Sequence[str] = (),
        fcp: FcpTally | None = None,
    ) -> list[Score | RowError | ConfigError]:
        """Like :meth:`score`, but a bad item's error is returned in its place (the others are scored).

        ``fcp`` gathers the FCP reports of the rubric rows' scoring requests (each covers the
        responses it scored); it misses responses scored another way (a server without the
        ``fcp`` param, or a batch that is not sent in columns), which the caller sees by its count.

        Raises:
            ConfigError: the server rejected ``options`` or ``aggregator`` (every item would fail).
            BridgeConnectionError: no answer could be had.
        """
        also = tuple(also)
        if self.also_in_request:
            try:
                return await self._score_each(requests, aggregator, options, host, also, fcp)
            except InvalidParams as error:
                if not _unrecognized(error, _NEWER_PARAMS):
                    raise
                logger.warning("the server predates alsoAggregators and shared rows (%s); asking once per aggregator, "
                               "rows inline", error.message)
                self.also_in_request = False  # an older server
        outcomes = await self._score_each(requests, aggregator, options, host, (), fcp)
        if not also:
            return outcomes
        others = await asyncio.gather(*(self._score_each(requests, name, options, host, (), None) for name in also))
        merged: list[Score | RowError | ConfigError] = []
        for k, outcome in enumerate(outcomes):
            if isinstance(outcome, Score):
                values: dict[str, float | None] = {}
                for name, other in zip(also, others):
                    given = other[k]
                    values[name] = given.reward if isinstance(given, Score) else None
                outcome = Score(outcome.reward, outcome.native_reward, outcome.method, outcome.effective, outcome.unread_judgments, values)
            merged.append(outcome)
        return merged

    async def _score_each(
        self,
        requests: Sequence[ScoreRequest],
        aggregator: str,
        options: Mapping[str, Any] | None,
        host: str | None,
        also: tuple[str, ...],
        fcp: FcpTally | None,
    ) -> list[Score | RowError | ConfigError]:
        out: list[Score | RowError | ConfigError | None] = [None] * len(requests)
        rubric_rows = [i for i, r in enumerate(requests) if not r.row.is_host]
        host_rows = [i for i, r in enumerate(requests) if r.row.is_host]
        jobs = []
        if rubric_rows:
            jobs.append(self._score_rubric_rows(requests, rubric_rows, out, aggregator, options, also, fcp))
        if host_rows:
            jobs.append(self._score_host_rows(requests, host_rows, out, aggregator, options, host, also))
        await asyncio.gather(*jobs)
        done: list[Score | RowError | ConfigError] = []
        for outcome in out:
            assert outcome is not None
            done.append(outcome)
        return done

    async def _score_rubric_rows(
        self,
        requests: Sequence[ScoreRequest],
        indices: list[int],
        out: list[Score | RowError | ConfigError | None],
        aggregator: str,
        options: Mapping[str, Any] | None,
        also: tuple[str, ...],
        fcp: FcpTally | None = None,
    ) -> None:
        if await self._score_new_rubrics_in_columns(requests, indices, out, aggregator, options, also, fcp):
            return
        inline = False
        for attempt in range(_RESEND_UNKNOWN + 1):
            registered: list[Registration | RowError | ConfigError] = (
                await self._register_all([requests[i] for i in indices]) if not inline else [_INLINE] * len(indices)
            )
            sent: list[int] = []
            registrations: list[Registration] = []
            items: list[tuple[dict[str, Any], JudgeScores]] = []
            for index, registration in zip(indices, registered):
                if not isinstance(registration, Registration):
                    out[index] = registration  # the server rejected this row's rubric
                    continue
                judgment = requests[index].judgment
                assert isinstance(judgment, JudgeScores)
                size = registration.info.get("size") if not inline else None
                if isinstance(size, int) and len(judgment.p) != size:
                    # Caught here: in columns one miscounted response would shift every other one.
                    detail = f"has {len(judgment.p)} scores but the rubric has {size} criteria"
                    out[index] = _field_error(requests[index], ["scores", "p"], f"scores.p: {detail}")
                    continue
                sent.append(index)
                registrations.append(registration)
                ref = requests[index].row.scoring_ref() if inline else {"rubricId": registration.rubric_id}
                items.append((ref, judgment))
            if not items:
                return
            encoding = self.encoding
            judgments = [requests[i].judgment for i in sent]
            columns = self.columns and not inline and encoding == FLOAT64_BASE64 and _uniform_decisions(judgments)
            try:
                if columns:
                    results = await self._score_columns(list(registrations), judgments, aggregator, options, also, fcp)
                else:
                    results = await self._batched(
                        lambda chunk: self.client.score_batch(
                            chunk, aggregator=aggregator, options=options, encoding=encoding, also_aggregators=also or None
                        ),
                        [{**ref, "scores": judgment.to_wire(encoding)} for ref, judgment in items],
                        aggregator,
                        options,
                    )
            except MethodNotFound:
                if not columns:
                    raise
                logger.warning("the server has no rubric.scoreColumns; sending rubric.scoreBatch")
                self.columns = False  # an older server
                continue
            except UnknownRubric as error:
                if attempt == _RESEND_UNKNOWN:
                    raise
                unknown = set(error.rubric_ids)
                for registration in registrations:
                    if not unknown or registration.rubric_id in unknown:
                        self.registry.invalidate(registration)
                if attempt >= 1:
                    # Registered again and still unknown: the server keeps fewer rubrics than this
                    # batch uses (--max-rubrics). Send the rubrics inline instead.
                    logger.warning("the server forgot %d rubric(s) of one batch twice; sending them inline "
                                   "(raise gear serve --max-rubrics)", len(unknown))
                    inline = True
                continue
            except InvalidParams as error:
                if encoding is not None and error.path[:1] == ("encoding",):
                    logger.warning("the server does not take encoding %s; sending JSON numbers", encoding)
                    self.encoding = None  # an older server: JSON numbers from now on
                    continue
                raise self._envelope_error(error) from None
            self._fill_columns(requests, sent, results, out, also)
            return

    async def _score_new_rubrics_in_columns(
        self,
        requests: Sequence[ScoreRequest],
        indices: list[int],
        out: list[Score | RowError | ConfigError | None],
        aggregator: str,
        options: Mapping[str, Any] | None,
        also: tuple[str, ...],
        fcp: FcpTally | None = None,
    ) -> bool:
        """Scores the rows in ``rubric.scoreColumns`` requests that carry the rubrics not registered
        yet (the server registers them): in training every prompt is new, so this saves a
        ``rubric.registerBatch`` round trip per request.

        Returns False when the rows must take the register-then-score path, which then scores all
        of them: the server rejected one of the rubrics (``rubric.registerBatch`` tells whose row it
        is), the server predates ``rubrics``, or the batch does not fit columns.
        """
        judgments = [requests[i].judgment for i in indices]
        if not (self.columns and self.columns_register and self.also_in_request and self.encoding == FLOAT64_BASE64
                and _uniform_decisions(judgments)):
            return False
        for _ in range(_RESEND_UNKNOWN):
            sent: list[int] = []
            columns: list[Registration | GearRow] = []
            for index in indices:
                request = requests[index]
                judgment = request.judgment
                assert isinstance(judgment, JudgeScores)
                registration = self.registry.known(request.row)
                size = registration.info.get("size") if registration is not None else request.row.criteria_count
                if isinstance(size, int) and len(judgment.p) != size:
                    # Caught here: in columns one miscounted response would shift every other one.
                    detail = f"has {len(judgment.p)} scores but the rubric has {size} criteria"
                    out[index] = _field_error(request, ["scores", "p"], f"scores.p: {detail}")
                    continue
                sent.append(index)
                columns.append(registration if registration is not None else request.row)
            if not sent:
                return True
            try:
                results = await self._score_columns(columns, [requests[i].judgment for i in sent], aggregator, options, also, fcp)
            except UnknownRubric as error:
                unknown = set(error.rubric_ids)
                for column in columns:
                    if isinstance(column, Registration) and (not unknown or column.rubric_id in unknown):
                        self.registry.invalidate(column)  # sent inline next time
                for index in sent:
                    out[index] = None
                continue
            except InvalidParams as error:
                for index in sent:
                    out[index] = None
                if _unrecognized(error, _NEWER_PARAMS):
                    raise  # an older server still: the caller asks the older way
                head = error.path[:1]
                if head == ("rubrics",) and len(error.path) > 1:
                    return False  # a rubric the server rejected: the registration path names its row
                if head in ((), ("rubricIds",), ("rubricIndex",)):
                    logger.info("the server does not register rubrics in rubric.scoreColumns (%s); registering first", error.message)
                    self.columns_register = False  # an older server
                    return False
                raise self._envelope_error(error) from None
            except MethodNotFound:
                for index in sent:
                    out[index] = None
                return False
            self._fill_columns(requests, sent, results, out, also)
            return True
        return False

    def _fill_columns(
        self,
        requests: Sequence[ScoreRequest],
        sent: Sequence[int],
        results: Sequence[Mapping[str, Any]],
        out: list[Score | RowError | ConfigError | None],
        also: tuple[str, ...],
    ) -> None:
        for index, result in zip(sent, results):
            request = requests[index]
            if "error" in result:
                error_info = result["error"]
                path = list(error_info.get("path", []))
                # Compiling a registered rubric under the item's options reports a path relative
                # to the rubric itself (["edges", 0]), not under ["items", i].
                relative = path[2:] if path[:1] == ["items"] else [request.row.content_field, *path]
                out[index] = _field_error(request, relative, str(error_info.get("message", "")))
            else:
                effective = result["effective"]
                values = decode_float64(effective) if isinstance(effective, str) else tuple(effective)
                out[index] = Score(float(result["reward"]), float(result["flat"]), str(result["method"]), values, 0, _also_of(result, also))

    async def _register_all(self, requests: Sequence[ScoreRequest]) -> list[Registration | RowError | ConfigError]:
        """Each request's registration, or the error at its own row's field (new rubrics: one request,
        or one per ``maxBatchItems`` of them)."""
        distinct: dict[str, GearRow] = {}
        for request in requests:
            distinct.setdefault(request.row.key, request.row)
        rows = list(distinct.values())
        max_items, _ = await self._server_limits()
        step = max(1, max_items or len(rows))
        parts = await asyncio.gather(*(self.registry.resolve_many(rows[k : k + step]) for k in range(0, len(rows), step)))
        resolved = [outcome for part in parts for outcome in part]
        by_key = dict(zip(distinct, resolved))
        out: list[Registration | RowError | ConfigError] = []
        for request in requests:
            outcome = by_key[request.row.key]
            out.append(outcome if isinstance(outcome, Registration) else _field_error(request, outcome.path, _reason(outcome)))
        return out

    async def _score_host_rows(
        self,
        requests: Sequence[ScoreRequest],
        indices: list[int],
        out: list[Score | RowError | ConfigError | None],
        aggregator: str,
        options: Mapping[str, Any] | None,
        host: str | None,
        also: tuple[str, ...],
    ) -> None:
        # A GRPO group's responses share one row: each distinct row goes once per request (rows[k]),
        # and its items name it by index, so the server parses it once, not once per response.
        max_items, max_bytes = await self._server_limits()
        chunks = _host_chunks([requests[i] for i in indices], host, max_items, max_bytes, aggregator, options)

        async def send(chunk: _HostChunk) -> list[dict[str, Any]]:
            if not self.also_in_request:  # an older server: every item carries its row
                inline = _inline_rows(chunk.items, chunk.rows)
                return await self.client.host_score_batch(inline, aggregator=aggregator, options=options)
            return await self.client.host_score_batch(
                chunk.items, rows=chunk.rows, aggregator=aggregator, options=options, also_aggregators=also or None,
                omit=("judgments", "extras"),  # per-criterion readings and host extras: not read here
            )

        try:
            answers = await asyncio.gather(*(send(chunk) for chunk in chunks))
        except InvalidParams as error:
            raise self._envelope_error(error) from None
        results: list[dict[str, Any]] = []
        for chunk, answer in zip(chunks, answers):
            if len(answer) != len(chunk.items):
                raise RowError((), f"the server answered {len(answer)} results for {len(chunk.items)} items")
            results.extend(answer)
        for index, result in zip(indices, results):
            request = requests[index]
            if "error" in result:
                out[index] = _item_error(request, result["error"])
                continue
            out[index] = Score(
                float(result["reward"]),
                float(result["nativeReward"]),
                str(result["method"]),
                tuple(result["effective"]),
                _unread_of(result),
                _also_of(result, also),
            )

    async def _batched(self, send: Any, items: list[dict[str, Any]], aggregator: str, options: Mapping[str, Any] | None) -> list[dict[str, Any]]:
        """Sends ``items`` in as few requests as the server's limits allow, concurrently; results in order."""
        max_items, max_bytes = await self._server_limits()
        chunks = _chunks(items, max_items, max_bytes, aggregator, options)
        answers = await asyncio.gather(*(send(chunk) for chunk in chunks))
        results: list[dict[str, Any]] = []
        offset = 0
        for chunk, answer in zip(chunks, answers):
            if len(answer) != len(chunk):
                raise RowError((), f"the server answered {len(answer)} results for {len(chunk)} items")
            for result in answer:
                result = dict(result)
                result["index"] = offset + int(result.get("index", 0))
                results.append(result)
            offset += len(chunk)
        return results

    async def _server_limits(self) -> tuple[int | None, int | None]:
        """The server's maxBatchItems and maxPayloadBytes (None when it does not say)."""
        await self.client.open()
        info = self.client.server_info or {}
        limits = info.get("limits", {}) if isinstance(info.get("limits"), dict) else {}
        max_items = limits.get("maxBatchItems") if isinstance(limits.get("maxBatchItems"), int) else None
        max_bytes = limits.get("maxPayloadBytes") if isinstance(limits.get("maxPayloadBytes"), int) else None
        return max_items, max_bytes

    async def _score_columns(
        self,
        columns: list[Registration | GearRow],
        judgments: list[Judgment],
        aggregator: str,
        options: Mapping[str, Any] | None,
        also: tuple[str, ...],
        fcp: FcpTally | None = None,
    ) -> list[dict[str, Any]]:
        """``rubric.scoreColumns`` in as few requests as the server's limits allow, its answer
        reshaped into ``rubric.scoreBatch`` results (item error paths included) for the caller.

        ``columns`` gives each response's rubric: a registration (sent by id), or a row whose rubric
        the request carries inline (once per request) for the server to register.
        """
        max_items, max_bytes = await self._server_limits()
        bounds: list[tuple[int, int]] = []
        start, size = 0, 0
        for k, judgment in enumerate(judgments):
            assert isinstance(judgment, JudgeScores)
            # id + quotes + comma, base64 of 8 bytes per score, and ", false" per decision. An
            # inline rubric's bytes are not counted: a request is split where the items alone demand it.
            item_bytes = 74 + 11 * len(judgment.p) + (6 * len(judgment.p) if judgment.d is not None else 0)
            full = (max_items is not None and k - start >= max_items) or (
                max_bytes is not None and k > start and size + item_bytes > max_bytes - _ENVELOPE_SLACK - 256
            )
            if full:
                bounds.append((start, k))
                start, size = k, 0
            size += item_bytes
        bounds.append((start, len(judgments)))
        answers = await asyncio.gather(
            *(self._columns_request(columns[a:b], judgments[a:b], aggregator, options, also, fcp) for a, b in bounds if b > a)
        )
        results: list[dict[str, Any]] = []
        for (a, _), answer in zip(bounds, answers):
            results.extend({**result, "index": a + int(result["index"])} for result in answer)
        return results

    async def _columns_request(
        self,
        columns: list[Registration | GearRow],
        judgments: list[Judgment],
        aggregator: str,
        options: Mapping[str, Any] | None,
        also: tuple[str, ...],
        fcp: FcpTally | None = None,
    ) -> list[dict[str, Any]]:
        scores = [j for j in judgments if isinstance(j, JudgeScores)]
        params: dict[str, Any] = {}
        new_rows: dict[str, tuple[int, GearRow]] = {}
        if all(isinstance(c, Registration) for c in columns):
            params["rubricIds"] = [c.rubric_id for c in columns if isinstance(c, Registration)]
        else:
            # Each distinct rubric once: by id when registered, else inline.
            entries: list[dict[str, Any]] = []
            where: dict[str, int] = {}
            index: list[int] = []
            for column in columns:
                key = column.key
                k = where.get(key)
                if k is None:
                    k = where[key] = len(entries)
                    if isinstance(column, Registration):
                        entries.append({"rubricId": column.rubric_id})
                    else:
                        entries.append(column.scoring_ref())
                        new_rows[key] = (k, column)
                index.append(k)
            params["rubrics"] = entries
            params["rubricIndex"] = index
        params["p"] = encode_float64(x for j in scores for x in j.p)
        params["aggregator"] = aggregator
        if scores and scores[0].d is not None:
            params["d"] = [x for j in scores for x in (j.d or ())]
        if options is not None:
            params["options"] = options
        if also:
            params["alsoAggregators"] = list(also)
        if fcp is not None and self.fcp_in_request:
            params["fcp"] = fcp.params
        try:
            answer = await self.client.call("rubric.scoreColumns", params)
        except InvalidParams as error:
            if "fcp" not in params or not _unrecognized(error, ("fcp",)):
                raise
            logger.info("the server's rubric.scoreColumns predates fcp; the step's FCP takes a diagnostics.fcp request")
            self.fcp_in_request = False  # an older server
            del params["fcp"]
            answer = await self.client.call("rubric.scoreColumns", params)
        if fcp is not None and "fcp" in params:
            fcp.add(answer.get("fcp"))
        if new_rows:
            ids = answer.get("rubricIds")
            if isinstance(ids, list):
                for k, row in new_rows.values():
                    self.registry.remember(row, {"rubricId": ids[k], "size": row.criteria_count})
                self.registry.registrations += len(new_rows)
        return self._reshape_columns(answer)

    @staticmethod
    def _reshape_columns(answer: Mapping[str, Any]) -> list[dict[str, Any]]:
        effective = decode_float64(answer["effective"])
        errors = {int(e["index"]): e["error"] for e in answer["errors"]}
        also_columns: Mapping[str, Sequence[float | None]] = answer.get("also") or {}
        results: list[dict[str, Any]] = []
        offset = 0
        for index, size in enumerate(answer["sizes"]):
            if index in errors:
                error = dict(errors[index])
                path = list(error.get("path", []))
                # Columns name a score by its position in the whole p (or d); scoreBatch by item.
                if len(path) == 2 and path[0] in ("p", "d") and isinstance(path[1], int):
                    path = ["items", index, "scores", path[0], path[1] - offset]
                elif path[:1] in (["rubricIds"], ["rubricIndex"]):
                    path = path[2:]  # the registered rubric's own field (it failed to compile under these options)
                error["path"] = path
                results.append({"index": index, "error": error})
            else:
                results.append(
                    {
                        "index": index,
                        "reward": answer["rewards"][index],
                        "flat": answer["flat"][index],
                        "method": answer["methods"][index],
                        "effective": effective[offset : offset + size],
                        **({"also": {name: column[index] for name, column in also_columns.items()}} if also_columns else {}),
                    }
                )
            offset += int(size)
        return results

    @staticmethod
    def _envelope_error(error: InvalidParams) -> ConfigError | InvalidParams:
        path = error.path
        if path and path[0] in ("aggregator", "options"):
            return ConfigError(path, _reason(error))
        return error


def _uniform_decisions(judgments: Sequence[Judgment]) -> bool:
    """Columns carry decisions for every response or for none."""
    with_d = [isinstance(j, JudgeScores) and j.d is not None for j in judgments]
    return all(isinstance(j, JudgeScores) for j in judgments) and (all(with_d) or not any(with_d))


def _reason(error: InvalidParams) -> str:
    if isinstance(error.data, dict) and isinstance(error.data.get("reason"), str):
        return str(error.data["reason"])
    return error.message


_ENVELOPE_SLACK = 1024

#: Params this bridge sends that servers before them reject as unrecognized keys.
_NEWER_PARAMS = ("alsoAggregators", "rows", "omit")


def _unrecognized(error: InvalidParams, keys: Sequence[str]) -> bool:
    """Whether the server refused the request for a top-level param it does not know (one of ``keys``)."""
    if error.path and error.path[0] in keys:
        return True
    reason = error.data.get("reason", "") if isinstance(error.data, dict) else ""
    return not error.path and any(f'"{key}"' in f"{reason} {error.message}" for key in keys) and "nrecognized key" in f"{reason} {error.message}"


#: Judgment read statuses that mean the judge's output could not be read for a criterion.
_UNREAD = frozenset({"missing", "unparsable", "invalid-value", "duplicate"})


def _unread_of(result: Mapping[str, Any]) -> int:
    """Criteria whose judge output was not read: the server's count, or (older servers) its judgments'."""
    if isinstance(result.get("failedCriteria"), int):
        return int(result["failedCriteria"])
    return sum(1 for j in result.get("judgments", []) if isinstance(j, dict) and j.get("status") in _UNREAD)


def _also_of(result: Mapping[str, Any], also: Sequence[str]) -> dict[str, float | None]:
    """A result's ``also`` rewards, in the order asked (None where the server gave none)."""
    given = result.get("also") or {}
    out: dict[str, float | None] = {}
    for name in also:
        value = given.get(name)
        out[name] = float(value) if isinstance(value, (int, float)) else None
    return out


@dataclass
class _HostChunk:
    """One ``host.scoreBatch``: items naming ``rows`` by index, and the distinct rows they name."""

    items: list[dict[str, Any]] = field(default_factory=list)
    rows: list[Mapping[str, Any]] = field(default_factory=list)
    row_index: dict[str, int] = field(default_factory=dict)
    #: An upper bound of the request's bytes (see :func:`_json_bound`).
    bound: int = 0


def _inline_rows(items: Sequence[Mapping[str, Any]], rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Items naming ``rows`` by ``rowIndex``, each carrying its row instead (for an older server)."""
    return [{**{k: v for k, v in item.items() if k != "rowIndex"}, "row": rows[item["rowIndex"]]} for item in items]


def _json_bound(text: str) -> int:
    """Bytes a string can take in JSON at most: every character escaped as ``\\uXXXX``, plus quotes."""
    return 6 * len(text) + 2


def _host_chunks(
    requests: Sequence[ScoreRequest],
    host: str | None,
    max_items: int | None,
    max_bytes: int | None,
    aggregator: str,
    options: Mapping[str, Any] | None,
) -> list[_HostChunk]:
    """Splits host items into requests within the server's limits, each carrying the rows it names.

    Sizes are bounded, not measured: a row's bytes are counted exactly once (it is serialised once
    to measure it), a response's and judge outputs' by their worst-case escaping, so no chunk can
    exceed ``maxPayloadBytes`` however its text escapes.
    """
    budget = None
    if max_bytes is not None:
        envelope = len(json.dumps({"aggregator": aggregator, "options": options}, separators=(",", ":")).encode("utf-8"))
        budget = max_bytes - envelope - _ENVELOPE_SLACK
    row_bytes: dict[str, int] = {}
    chunks: list[_HostChunk] = [_HostChunk()]
    for request in requests:
        assert isinstance(request.judgment, tuple)
        key = request.row.key
        if budget is not None and key not in row_bytes:
            row_bytes[key] = len(json.dumps(request.row.content, separators=(",", ":"), ensure_ascii=False).encode("utf-8")) + 1
        item_bound = 64 + len(host or request.row.format) + sum(_json_bound(o) + 1 for o in request.judgment)
        chunk = chunks[-1]
        added = item_bound + (row_bytes.get(key, 0) if key not in chunk.row_index else 0)
        full = (max_items is not None and len(chunk.items) >= max_items) or (
            budget is not None and chunk.items and chunk.bound + added > budget
        )
        if full:
            chunk = _HostChunk()
            chunks.append(chunk)
            added = item_bound + row_bytes.get(key, 0)
        row = chunk.row_index.get(key)
        if row is None:
            row = chunk.row_index[key] = len(chunk.rows)
            chunk.rows.append(request.row.content)
        # The judge's outputs carry the verdicts: scoring never reads the response, and a policy's
        # responses are KBs each (MBs a step). Sent empty rather than left out: older servers require it.
        chunk.items.append({"host": host or request.row.format, "rowIndex": row, "response": "", "judgeOutputs": list(request.judgment)})
        chunk.bound += added
    return [c for c in chunks if c.items]


def _chunks(
    items: list[dict[str, Any]], max_items: int | None, max_bytes: int | None, aggregator: str, options: Mapping[str, Any] | None
) -> list[list[dict[str, Any]]]:
    if max_items is None and max_bytes is None:
        return [items]
    budget = None
    if max_bytes is not None:
        envelope = len(json.dumps({"aggregator": aggregator, "options": options}, separators=(",", ":")).encode("utf-8"))
        budget = max_bytes - envelope - _ENVELOPE_SLACK
    if max_items is None or len(items) <= max_items:
        whole = len(json.dumps(items, separators=(",", ":"), ensure_ascii=False).encode("utf-8")) if budget is not None else 0
        if budget is None or whole <= budget:
            return [items]  # the usual case: one request, sized once
    chunks: list[list[dict[str, Any]]] = []
    current: list[dict[str, Any]] = []
    size = 0
    for item in items:
        item_size = len(json.dumps(item, separators=(",", ":"), ensure_ascii=False).encode("utf-8")) + 1 if budget is not None else 0
        full = (max_items is not None and len(current) >= max_items) or (budget is not None and current and size + item_size > budget)
        if full:
            chunks.append(current)
            current, size = [], 0
        current.append(item)
        size += item_size
    if current:
        chunks.append(current)
    return chunks
