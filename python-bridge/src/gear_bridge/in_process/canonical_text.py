"""A canonical row's JSON text read straight to its :class:`RubricParts` by ``msgspec``.

A new prompt's row is read once per step, inside verl's per-response loop, where every row of a
first epoch is new: parsing its text to Python objects (orjson) and then checking them
(:func:`read_canonical`) cost ~28 us a row there (``bench/python/verl_legacy_naive_parts.py``).
msgspec parses and checks the shape in one pass, in C, into objects the collector never tracks.

It reads only what :func:`read_canonical` of ``orjson.loads(text)`` reads to the same parts, and
answers None for everything else: a text that does not begin with ``"format": "canonical"`` (the
converter writes the format first), any other format, a field that is missing, null, of another type
or not in the schema, an integer weight past 2**53 (orjson and msgspec read those differently),
non-finite numbers, texts msgspec refuses. The caller then takes the general path, so each such
row is read exactly as before (a differential test holds the two readers to that).
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from .rubric_rows import FLOAT_INT_LIMIT, MAX_CRITERIA, MAX_EDGES, RELATIONS, ROLES, Edge, RubricParts, retention_override

__all__ = ["read_canonical_text"]

#: Where a row's text names its format when the format comes first (`{"format": "canonical"`).
_FORMAT_WITHIN = 48
_UNSET: Any = msgspec.UNSET


# forbid_unknown_fields: RubricSchema is strict (a field it does not have fails the row there).
# gc=False: the fields are strings and numbers, so no cycle can go through one.
class _Criterion(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    id: str
    text: str
    weight: int | float
    role: str | msgspec.UnsetType = msgspec.UNSET


class _Edge(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    parent: str
    child: str
    relation: str
    retention: int | float | msgspec.UnsetType = msgspec.UNSET


class _Rubric(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    criteria: list[_Criterion]
    edges: list[_Edge] = []  # absent reads as none, as in read_canonical


class _Spec(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    format: Literal["canonical"]
    rubric: _Rubric


_DECODER = msgspec.json.Decoder(_Spec)
_REFUSED = (msgspec.DecodeError, UnicodeError)


def read_canonical_text(text: str) -> RubricParts | None:
    """The parts of a canonical row's JSON text, as ``read_canonical(orjson.loads(text)["rubric"])``
    reads them; None where this reader is not sure of that (the caller reads the text as before)."""
    # Rows of other formats skip the attempt (a refusal raises, ~1-2 us): converted rows begin
    # with their format. A canonical row that begins otherwise is read as before.
    if text.find('"canonical"', 0, _FORMAT_WITHIN) < 0:
        return None
    try:
        rubric = _DECODER.decode(text).rubric
    except _REFUSED:
        return None
    criteria = rubric.criteria
    edges = rubric.edges
    if not criteria or len(criteria) > MAX_CRITERIA or len(edges) > MAX_EDGES:
        return None
    weights: list[float] = []
    for item in criteria:
        weight = item.weight
        if type(weight) is int:
            if not -FLOAT_INT_LIMIT <= weight <= FLOAT_INT_LIMIT:
                return None
            weight = float(weight)
        elif weight - weight != 0:  # inf - inf and nan - nan are nan
            return None
        if not item.id or isinstance(item.role, str) and item.role not in ROLES:
            return None
        weights.append(weight)
    read_edges: list[Edge] = []
    for edge in edges:
        if not edge.parent or not edge.child or edge.relation not in RELATIONS:
            return None
        retention = None
        if edge.retention is not _UNSET:
            retention = retention_override(edge.retention)
            if retention is None:
                return None
        read_edges.append((edge.parent, edge.child, edge.relation, retention))
    return RubricParts(tuple([item.id for item in criteria]), tuple(weights), tuple(read_edges), tuple([item.text for item in criteria]),
                       tuple([item.role if isinstance(item.role, str) else "" for item in criteria]))
