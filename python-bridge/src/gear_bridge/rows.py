"""The VERL row layout: ``extra_info["gear"]`` holds the rubric, the call brings the judgments.

``extra_info["gear"]`` is a dict, or the same as a JSON string (parquet-friendly)::

    {"format": "canonical",     "rubric": {"criteria": [...], "edges": [...]}}
    {"format": "official-gear", "reward_model": {"rubrics": [...], "graph": {...}}}
    {"format": "<host>",        "row": {... the host's row, as in adapters/<host>/README.md ...}}

with ``<host>`` one of ruscarl, merf, rar-explicit, gear, writingbench, plawbench. The judgments of
one response (by default ``extra_info["gear_judgments"]``) are, for ``canonical`` and
``official-gear``, judge scores ``{"p": [floats in [0, 1]], "d": [bools]?}`` in rubric order, and for
a host, the judge's raw outputs: a list with one string per judge request (as ``host.requests``
lists them), in the host's judge-output format. Either may be a JSON string.

Every check raises :class:`RowError` whose ``path`` names the field, e.g.
``extra_info.gear.rubric.criteria[2].weight``. Rows are only checked for shape here: the service
reads them and names anything else that is wrong.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence, Union

from .exceptions import PathPart, RowError
from .plain_data import plain
from .protocol import stable_json
from .settings import FORMATS, HOSTS

__all__ = ["GEAR_KEY", "GearRow", "JudgeScores", "Judgment", "parse_row", "parse_gear_spec", "parse_judgment", "parse_scores",
           "parse_judge_outputs"]

#: The ``extra_info`` key that holds the rubric.
GEAR_KEY = "gear"

_CONTENT_FIELD = {"canonical": "rubric", "official-gear": "reward_model", **{host: "row" for host in HOSTS}}


@dataclass(frozen=True)
class GearRow:
    """A parsed ``extra_info["gear"]``: its format and content (plain JSON data, not to be changed)."""

    format: str
    content: Mapping[str, Any]

    @functools.cached_property
    def key(self) -> str:
        """A digest of the format and content: equal rows share one entry in a request."""
        return hashlib.sha256(stable_json([self.format, self.content]).encode("utf-8")).hexdigest()

    @property
    def is_host(self) -> bool:
        """Whether the row is a host's (scored from raw judge outputs through ``host.*``)."""
        return self.format in HOSTS

    @property
    def content_field(self) -> str:
        """``rubric``, ``reward_model`` or ``row``: the spec field (and wire param) of the content."""
        return _CONTENT_FIELD[self.format]

    @property
    def criteria_count(self) -> int:
        """How many criteria a canonical or official row's rubric has (its judge scores' length)."""
        return len(self.content["criteria" if self.format == "canonical" else "rubrics"])


@dataclass(frozen=True)
class JudgeScores:
    """One response's judge scores in rubric order: ``p`` in [0, 1], optional decisions ``d``."""

    p: tuple[float, ...]
    d: tuple[bool, ...] | None = None


#: Judge scores (canonical, official-gear) or the judge's raw outputs, one per request (hosts).
Judgment = Union[JudgeScores, tuple[str, ...]]


def _json_text(value: Any, path: tuple[PathPart, ...]) -> Any:
    if isinstance(value, (str, bytes)):
        try:
            return json.loads(value)
        except ValueError as error:
            raise RowError(path, f"is a string but not valid JSON ({error})") from None
    return value


def _check_finite(value: Any, path: tuple[PathPart, ...]) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise RowError(path, f"must be a finite number, got {value!r}")
    if isinstance(value, dict):
        for key, item in value.items():
            _check_finite(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_finite(item, (*path, index))


def _expect_list(container: Mapping[str, Any], field: str, path: tuple[PathPart, ...], *, required: bool) -> None:
    if field not in container:
        if required:
            raise RowError((*path, field), "missing")
        return
    items = container[field]
    if not isinstance(items, list):
        raise RowError((*path, field), f"must be a list, got {type(items).__name__}")
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise RowError((*path, field, index), f"must be an object, got {type(item).__name__}")


@functools.lru_cache(maxsize=4096)
def _parse_spec_text(text: str) -> GearRow:
    # A GRPO group's rollouts carry the same text: read once.
    try:
        spec = json.loads(text)
    except ValueError as error:
        raise RowError((), f"is a string but not valid JSON ({error})") from None
    return _parse_spec(spec, ())


def parse_gear_spec(value: Any, path: Sequence[PathPart] = ("extra_info", GEAR_KEY)) -> GearRow:
    """Parses one ``extra_info["gear"]`` value (a dict or its JSON string).

    Raises:
        RowError: naming the field that is missing or malformed.
    """
    where = tuple(path)
    try:
        if isinstance(value, str):
            return _parse_spec_text(value)
        return _parse_spec(plain(_json_text(value, ())), ())
    except RowError as error:
        raise RowError((*where, *error.path), error.reason) from None


def _parse_spec(spec: Any, path: tuple[PathPart, ...]) -> GearRow:
    if not isinstance(spec, dict):
        raise RowError(path, f'must be an object {{"format": ..., ...}} or its JSON string, got {type(spec).__name__}')
    form = spec.get("format")
    if form is None:
        raise RowError((*path, "format"), f"missing: one of {', '.join((*FORMATS, *HOSTS))}")
    if form not in _CONTENT_FIELD:
        raise RowError((*path, "format"), f"must be one of {', '.join((*FORMATS, *HOSTS))}, got {form!r}")
    field = _CONTENT_FIELD[form]
    for key in spec:
        if key not in ("format", field):
            raise RowError((*path, key), f'unknown field for format "{form}" (expected "format" and "{field}")')
    if field not in spec:
        raise RowError((*path, field), f'missing: the {"host row" if field == "row" else "rubric"} of a "{form}" row')
    content = spec[field]
    where = (*path, field)
    if not isinstance(content, dict):
        raise RowError(where, f"must be an object, got {type(content).__name__}")
    _check_finite(content, where)
    if form == "canonical":
        _expect_list(content, "criteria", where, required=True)
        _expect_list(content, "edges", where, required=False)
    elif form == "official-gear":
        _expect_list(content, "rubrics", where, required=True)
        graph = content.get("graph")
        if graph is not None:
            if not isinstance(graph, dict):
                raise RowError((*where, "graph"), f"must be an object, got {type(graph).__name__}")
            _expect_list(graph, "nodes", (*where, "graph"), required=False)
            _expect_list(graph, "edges", (*where, "graph"), required=False)
    return GearRow(form, content)


def parse_row(extra_info: Any, path: Sequence[PathPart] = ("extra_info",)) -> GearRow:
    """Reads the gear rubric of a VERL row from its ``extra_info``.

    Raises:
        RowError: naming the missing or malformed field.
    """
    where = tuple(path)
    if extra_info is None:
        raise RowError(where, f'missing: the row has no extra_info, so no extra_info["{GEAR_KEY}"] rubric')
    if not isinstance(extra_info, Mapping):
        raise RowError(where, f"must be a dict, got {type(extra_info).__name__}")
    if GEAR_KEY not in extra_info:
        raise RowError((*where, GEAR_KEY), 'missing: the rubric spec {"format": ..., ...} (see gear_bridge.rows)')
    return parse_gear_spec(extra_info[GEAR_KEY], (*where, GEAR_KEY))


def parse_scores(value: Any, path: Sequence[PathPart]) -> JudgeScores:
    """Reads judge scores ``{"p": [...], "d": [...]?}`` (or their JSON string).

    Raises:
        RowError: naming the field (e.g. ``...p[3]`` for a NaN or a value outside [0, 1]).
    """
    where = tuple(path)
    scores = plain(_json_text(value, where))
    if not isinstance(scores, dict):
        raise RowError(where, f'must be judge scores {{"p": [...], "d": [...]}}, got {type(scores).__name__}')
    for key in scores:
        if key not in ("p", "d"):
            raise RowError((*where, key), 'unknown field (judge scores have "p" and optional "d")')
    if "p" not in scores:
        raise RowError((*where, "p"), "missing: one probability per criterion, in rubric order")
    p = scores["p"]
    if not isinstance(p, list):
        raise RowError((*where, "p"), f"must be a list of numbers, got {type(p).__name__}")
    for index, item in enumerate(p):
        if isinstance(item, bool) or not isinstance(item, (int, float)) or not math.isfinite(item) or not 0 <= item <= 1:
            raise RowError((*where, "p", index), f"must be a number in [0, 1], got {item!r}")
    decisions: tuple[bool, ...] | None = None
    if scores.get("d") is not None:
        d = scores["d"]
        if not isinstance(d, list):
            raise RowError((*where, "d"), f"must be a list of booleans, got {type(d).__name__}")
        for index, item in enumerate(d):
            if not isinstance(item, bool):
                raise RowError((*where, "d", index), f"must be a boolean, got {item!r}")
        if len(d) != len(p):
            raise RowError((*where, "d"), f"has {len(d)} decisions for {len(p)} probabilities")
        decisions = tuple(d)
    return JudgeScores(tuple(p), decisions)


def parse_judge_outputs(value: Any, path: Sequence[PathPart]) -> tuple[str, ...]:
    """Reads a host judge's raw outputs: a list of strings (or its JSON string), one per request.

    Raises:
        RowError: naming the field.
    """
    where = tuple(path)
    outputs = plain(_json_text(value, where))
    if not isinstance(outputs, list):
        raise RowError(where, f"must be a list of the judge's raw output strings (or its JSON string), got {type(outputs).__name__}")
    for index, item in enumerate(outputs):
        if not isinstance(item, str):
            raise RowError((*where, index), f"must be a string (the judge's raw output), got {type(item).__name__}")
    return tuple(outputs)


def parse_judgment(value: Any, row: GearRow, path: Sequence[PathPart]) -> Judgment:
    """Reads one response's judgments in the form ``row``'s format takes.

    Raises:
        RowError: naming the field.
    """
    return parse_judge_outputs(value, path) if row.is_host else parse_scores(value, path)
