"""Splitting one ``judge.scoreBatch`` into requests within the server's limits.

A chunk of verl's step is one call, and a call's frame must stay under the server's
``maxPayloadBytes`` (8 MiB by default) and its items under ``maxBatchItems``. Rows are shared (each
request carries the rows its items name, once), but responses travel whole: 112 responses of
~75 KB (about 19k tokens) fill 8 MiB. Most chunks are far under the limits, which a cheap bound
shows without measuring anything; only a chunk the bound cannot clear has its responses measured
exactly and is split.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from ..scoring import _ENVELOPE_SLACK, _json_bound

__all__ = ["JudgeChunk", "judge_chunks"]

#: Bytes of an item besides its host and response: braces, keys, the row index.
_ITEM_OVERHEAD = 64

JudgeChunk = tuple[list[dict[str, Any]], list[Mapping[str, Any]]]


def _row_bytes(row: Mapping[str, Any]) -> int:
    return len(json.dumps(row, separators=(",", ":"), ensure_ascii=False).encode("utf-8")) + 1


def _response_bytes(text: str) -> int:
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8"))


def judge_chunks(
    items: Sequence[dict[str, Any]],
    rows: Sequence[Mapping[str, Any]],
    max_items: int | None,
    max_bytes: int | None,
    envelope: Mapping[str, Any],
) -> list[JudgeChunk]:
    """The items (naming ``rows`` by ``rowIndex``) in as few requests as the limits allow, in order;
    each request's rows are the ones its items name, re-indexed.

    Args:
        max_items, max_bytes: the server's maxBatchItems and maxPayloadBytes (None: no limit).
        envelope: the request's other params (aggregator, options, judge, endpoints, ...).
    """
    budget = None
    if max_bytes is not None:
        budget = max_bytes - len(json.dumps(envelope, separators=(",", ":"), ensure_ascii=False).encode("utf-8")) - _ENVELOPE_SLACK
    fits_items = max_items is None or len(items) <= max_items
    if budget is None and fits_items:
        return [(list(items), list(rows))]
    row_bytes = [_row_bytes(row) for row in rows] if budget is not None else [0] * len(rows)
    if fits_items and budget is not None:
        # Every character escaped as \uXXXX: an upper bound that needs no encoding.
        bound = sum(row_bytes) + sum(_ITEM_OVERHEAD + len(item["host"]) + _json_bound(item["response"]) for item in items)
        if bound <= budget:
            return [(list(items), list(rows))]
    chunks: list[JudgeChunk] = []
    chunk_items: list[dict[str, Any]] = []
    chunk_rows: list[Mapping[str, Any]] = []
    named: dict[int, int] = {}
    size = 0
    for item in items:
        source = item["rowIndex"]
        item_bytes = _ITEM_OVERHEAD + len(item["host"]) + (_response_bytes(item["response"]) if budget is not None else 0)
        added = item_bytes + (row_bytes[source] if source not in named else 0)
        full = (max_items is not None and len(chunk_items) >= max_items) or (
            budget is not None and chunk_items and size + added > budget
        )
        if full:
            chunks.append((chunk_items, chunk_rows))
            chunk_items, chunk_rows, named, size = [], [], {}, 0
            added = item_bytes + row_bytes[source]
        index = named.get(source)
        if index is None:
            index = named[source] = len(chunk_rows)
            chunk_rows.append(rows[source])
        chunk_items.append({**item, "rowIndex": index})
        size += added
    if chunk_items:
        chunks.append((chunk_items, chunk_rows))
    return chunks
