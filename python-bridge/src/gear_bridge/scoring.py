"""Scoring parsed rows through one client: one request per kind and chunk, errors at the row's field.

:class:`Scorer` sends canonical / official-gear rows as ``rubric.scoreColumns`` (each distinct rubric
once per request, inline; every response's scores in one float64 string) and host rows as
``host.scoreBatch`` (each distinct row once per request, named by index). A list of responses is
split only where the server's ``maxBatchItems`` or ``maxPayloadBytes`` demand it, and the chunks go
out together. Rewards under other aggregators (``also``) come back in the same request.
Errors the server reports for an item are returned as :class:`RowError` at the row's own field
(``extra_info.gear.rubric.criteria[2].weight``, ``extra_info.gear_judgments.p[4]``).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .asyncio.client import AsyncClient
from .exceptions import ConfigError, InvalidParams, PathPart, RowError, format_path
from .fcp import FcpTally
from .protocol import decode_float64, encode_float64
from .rows import GEAR_KEY, GearRow, JudgeScores, Judgment

__all__ = ["SCORE_KEYS", "ScoreRequest", "Score", "Scorer", "split_chunks", "json_bytes"]

#: The keys of every score dict the VERL glue returns, in order (VERL builds arrays from the first).
SCORE_KEYS = ("score", "native_score", "num_criteria", "unread_judgments")

#: Bytes kept free under ``maxPayloadBytes`` for the frame's envelope (jsonrpc, id, method).
_ENVELOPE_SLACK = 1024
#: Bytes of an item besides its own texts and scores: braces, keys, indices.
_ITEM_OVERHEAD = 64


@dataclass(frozen=True)
class ScoreRequest:
    """One response to score: its row, response text, judgments, and where they sit (for errors)."""

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
        also: the rewards under the ``also`` aggregators (None where one cannot score the rubric).
    """

    reward: float
    native_reward: float
    method: str
    effective: tuple[float, ...]
    unread_judgments: int = 0
    also: Mapping[str, float | None] = field(default_factory=dict)

    def fields(self) -> dict[str, float | int]:
        """The VERL score dict: the same keys (:data:`SCORE_KEYS`) for every row and format."""
        return {"score": self.reward, "native_score": self.native_reward, "num_criteria": len(self.effective),
                "unread_judgments": self.unread_judgments}


def json_bytes(value: Any) -> int:
    """The UTF-8 length of ``value`` as JSON."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def split_chunks(entries: Sequence[tuple[str, int, int]], max_items: int | None, budget: int | None) -> list[list[int]]:
    """Positions of ``entries`` (row key, row bytes, item bytes) in consecutive requests within
    ``max_items`` and ``budget`` bytes; a row's bytes count once per request that names it."""
    chunks: list[list[int]] = [[]]
    rows: set[str] = set()
    size = 0
    for position, (key, row_bytes, item_bytes) in enumerate(entries):
        added = item_bytes + (0 if key in rows else row_bytes)
        chunk = chunks[-1]
        if chunk and ((max_items is not None and len(chunk) >= max_items) or (budget is not None and size + added > budget)):
            chunks.append([])
            rows, size, added = set(), 0, item_bytes + row_bytes
        chunks[-1].append(position)
        rows.add(key)
        size += added
    return [chunk for chunk in chunks if chunk]


def _user_path(request: ScoreRequest, server_path: Sequence[Any]) -> tuple[tuple[PathPart, ...], bool]:
    """A server error path (relative to one item) as the row's field, and whether it is an option's."""
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


def field_error(request: ScoreRequest, server_path: Sequence[Any], message: str) -> RowError | ConfigError:
    """The server's complaint about one item, at the request's own field."""
    path, is_option = _user_path(request, server_path)
    prefix = format_path([p for p in server_path if isinstance(p, (str, int))]) + ": "
    detail = message[len(prefix):] if message.startswith(prefix) else message
    return ConfigError(path, detail) if is_option else RowError(path, detail)


def item_error(request: ScoreRequest, error_info: Mapping[str, Any]) -> RowError | ConfigError:
    """A ``host.scoreBatch`` or ``judge.scoreBatch`` item's error, reported at ``items[i]`` + the
    field or, for a shared row, at ``rows[k]`` + the field: the item's own row here."""
    path = list(error_info.get("path", []))
    relative = ["row", *path[2:]] if path[:1] == ["rows"] else path[2:]
    return field_error(request, relative, str(error_info.get("message", "")))


def envelope_error(error: InvalidParams) -> ConfigError | InvalidParams:
    """A refusal of the request's aggregator or options as the setting's error."""
    if error.path[:1] in (("aggregator",), ("options",)):
        return ConfigError(error.path, reason_of(error))
    return error


def reason_of(error: InvalidParams) -> str:
    if isinstance(error.data, dict) and isinstance(error.data.get("reason"), str):
        return str(error.data["reason"])
    return error.message


def also_of(result: Mapping[str, Any], also: Sequence[str]) -> dict[str, float | None]:
    """A result's ``also`` rewards, in the order asked (None where the server gave none)."""
    given = result.get("also") or {}
    return {name: float(given[name]) if isinstance(given.get(name), (int, float)) else None for name in also}


async def server_limits(client: AsyncClient, envelope: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """The server's maxBatchItems, and the bytes its maxPayloadBytes leaves for items beside ``envelope``."""
    await client.open()
    limits = (client.server_info or {}).get("limits")
    limits = limits if isinstance(limits, dict) else {}
    max_items = limits.get("maxBatchItems") if isinstance(limits.get("maxBatchItems"), int) else None
    max_bytes = limits.get("maxPayloadBytes") if isinstance(limits.get("maxPayloadBytes"), int) else None
    return max_items, None if max_bytes is None else max_bytes - json_bytes(envelope) - _ENVELOPE_SLACK


class Scorer:
    """Scores :class:`ScoreRequest` lists through one :class:`AsyncClient`."""

    def __init__(self, client: AsyncClient) -> None:
        self.client = client

    async def score(self, requests: Sequence[ScoreRequest], *, aggregator: str = "gear", options: Mapping[str, Any] | None = None,
                    host: str | None = None, also: Sequence[str] = ()) -> list[Score]:
        """Scores every request.

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

    async def score_each(self, requests: Sequence[ScoreRequest], *, aggregator: str = "gear", options: Mapping[str, Any] | None = None,
                         host: str | None = None, also: Sequence[str] = (), fcp: FcpTally | None = None) -> list[Score | RowError | ConfigError]:
        """Like :meth:`score`, but a bad item's error is returned in its place (the others are scored).
        ``fcp`` gathers the FCP reports of the rubric rows' requests.

        Raises:
            ConfigError: the server rejected ``options`` or ``aggregator`` (every item would fail).
            BridgeConnectionError: no answer could be had.
        """
        out: list[Score | RowError | ConfigError | None] = [None] * len(requests)
        envelope: dict[str, Any] = {"aggregator": aggregator, "options": options, "alsoAggregators": list(also)}
        columns: dict[bool, list[int]] = {False: [], True: []}
        for index, request in enumerate(requests):
            judgment = request.judgment
            if request.row.is_host:
                continue
            assert isinstance(judgment, JudgeScores)
            count = request.row.criteria_count
            if len(judgment.p) != count:  # caught here: in columns it would shift every later response
                out[index] = field_error(request, ["scores", "p"], f"has {len(judgment.p)} scores but the rubric has {count} criteria")
            else:
                columns[judgment.d is not None].append(index)
        hosts = [i for i, r in enumerate(requests) if r.row.is_host]
        max_items, budget = await server_limits(self.client, envelope)
        row_bytes: dict[str, int] = {}

        def entry(request: ScoreRequest, item_bytes: int) -> tuple[str, int, int]:
            key = request.row.key
            if key not in row_bytes:
                row_bytes[key] = json_bytes(request.row.content) if budget is not None else 0
            return key, row_bytes[key], item_bytes

        jobs = []
        for group in columns.values():
            # Per response: its rubric's index, and 8 bytes of float64 (as base64) and a decision per score.
            entries = [entry(requests[i], 20 + 17 * requests[i].row.criteria_count) for i in group]
            for chunk in split_chunks(entries, max_items, budget):
                jobs.append(self._columns(requests, [group[k] for k in chunk], out, envelope, fcp))
        if hosts:
            entries = [entry(requests[i], _ITEM_OVERHEAD + (json_bytes(requests[i].judgment) if budget is not None else 0)) for i in hosts]
            for chunk in split_chunks(entries, max_items, budget):
                jobs.append(self._hosts(requests, [hosts[k] for k in chunk], out, envelope, host))
        await asyncio.gather(*jobs)
        done: list[Score | RowError | ConfigError] = []
        for outcome in out:
            assert outcome is not None
            done.append(outcome)
        return done

    async def _columns(self, requests: Sequence[ScoreRequest], indices: list[int], out: list[Score | RowError | ConfigError | None],
                       envelope: Mapping[str, Any], fcp: FcpTally | None) -> None:
        """One ``rubric.scoreColumns``; a rubric the server refuses fails its own responses, the
        others are sent again without them."""
        while indices:
            entries: list[dict[str, Any]] = []
            where: dict[str, int] = {}
            rubric_index: list[int] = []
            for index in indices:
                row = requests[index].row
                if row.key not in where:
                    where[row.key] = len(entries)
                    entries.append({row.content_field: row.content})
                rubric_index.append(where[row.key])
            scores = [requests[i].judgment for i in indices]
            params: dict[str, Any] = {
                "rubrics": entries, "rubricIndex": rubric_index, "aggregator": envelope["aggregator"],
                "p": encode_float64(x for s in scores if isinstance(s, JudgeScores) for x in s.p),
            }
            first = scores[0]
            if isinstance(first, JudgeScores) and first.d is not None:
                params["d"] = [x for s in scores if isinstance(s, JudgeScores) for x in s.d or ()]
            if envelope["options"] is not None:
                params["options"] = envelope["options"]
            if envelope["alsoAggregators"]:
                params["alsoAggregators"] = envelope["alsoAggregators"]
            if fcp is not None:
                params["fcp"] = fcp.params
            try:
                answer = await self.client.call("rubric.scoreColumns", params)
            except InvalidParams as error:
                path = error.path
                if path[:1] != ("rubrics",) or len(path) < 2 or not isinstance(path[1], int):
                    raise envelope_error(error) from None
                kept = []
                for index, k in zip(indices, rubric_index):
                    if k == path[1]:
                        out[index] = field_error(requests[index], path[2:], reason_of(error))
                    else:
                        kept.append(index)
                indices = kept
                continue
            if fcp is not None:
                fcp.add(answer.get("fcp"))
            self._fill_columns(requests, indices, answer, out, envelope["alsoAggregators"])
            return

    @staticmethod
    def _fill_columns(requests: Sequence[ScoreRequest], indices: Sequence[int], answer: Mapping[str, Any],
                      out: list[Score | RowError | ConfigError | None], also: Sequence[str]) -> None:
        effective = decode_float64(answer["effective"])
        errors = {int(e["index"]): e["error"] for e in answer["errors"]}
        also_columns: Mapping[str, Sequence[float | None]] = answer.get("also") or {}
        offset = 0
        for k, (index, size) in enumerate(zip(indices, answer["sizes"])):
            request = requests[index]
            if k in errors:
                error = errors[k]
                path = list(error.get("path", []))
                if len(path) == 2 and path[0] in ("p", "d") and isinstance(path[1], int):
                    relative: list[Any] = ["scores", path[0], path[1] - offset]  # columns count scores over the whole request
                else:
                    relative = [request.row.content_field, *path[2:]]  # the rubric did not compile under these options
                out[index] = field_error(request, relative, str(error.get("message", "")))
            else:
                values = {name: column[k] for name, column in also_columns.items()}
                out[index] = Score(float(answer["rewards"][k]), float(answer["flat"][k]), str(answer["methods"][k]),
                                   effective[offset : offset + size], 0, also_of({"also": values}, also))
            offset += int(size)

    async def _hosts(self, requests: Sequence[ScoreRequest], indices: list[int], out: list[Score | RowError | ConfigError | None],
                     envelope: Mapping[str, Any], host: str | None) -> None:
        """One ``host.scoreBatch``: each distinct row once, its items naming it by index. Scoring
        reads the verdicts in the judge's outputs, never the response, so that travels empty."""
        rows: list[Mapping[str, Any]] = []
        where: dict[str, int] = {}
        items: list[dict[str, Any]] = []
        for index in indices:
            request = requests[index]
            if request.row.key not in where:
                where[request.row.key] = len(rows)
                rows.append(request.row.content)
            assert isinstance(request.judgment, tuple)
            items.append({"host": host or request.row.format, "rowIndex": where[request.row.key], "response": "",
                          "judgeOutputs": list(request.judgment)})
        also = envelope["alsoAggregators"]
        try:
            results = await self.client.host_score_batch(items, rows=rows, aggregator=envelope["aggregator"], options=envelope["options"],
                                                         also_aggregators=also or None, omit=("judgments", "extras"))
        except InvalidParams as error:
            raise envelope_error(error) from None
        if len(results) != len(items):
            raise RowError((), f"the server answered {len(results)} results for {len(items)} items")
        for index, result in zip(indices, results):
            if "error" in result:
                out[index] = item_error(requests[index], result["error"])
            else:
                out[index] = Score(float(result["reward"]), float(result["nativeReward"]), str(result["method"]), tuple(result["effective"]),
                                   int(result.get("failedCriteria", 0)), also_of(result, also))
