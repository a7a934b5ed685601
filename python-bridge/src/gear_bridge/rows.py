"""The VERL row layout: ``extra_info["gear"]`` holds the rubric, the call brings the judgments.

``extra_info["gear"]`` is a dict, or the same as a JSON string (parquet-friendly)::

    {"format": "canonical",     "rubric": {"criteria": [...], "edges": [...]}}
    {"format": "official-gear", "reward_model": {"rubrics": [...], "graph": {...}}}
    {"format": "<host>",        "row": {... the host's row, as in adapters/<host>/README.md ...}}

with ``<host>`` one of ruscarl, merf, rar-explicit, gear, writingbench, plawbench. The judgments of
one response (by default ``extra_info["gear_judgments"]``, read by the default judge) are, for
``canonical`` and ``official-gear``, judge scores ``{"p": [floats in [0, 1]], "d": [bools]?}`` in
rubric order, and for a host, the judge's raw outputs: a list with one string per judge request (as
``host.requests`` lists them), in the host's judge-output format. Either may be a JSON string.

Every check raises :class:`RowError` whose ``path`` names the field, e.g.
``extra_info.gear.rubric.criteria[2].weight``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Annotated, Any, Callable, Mapping, Sequence, Union

import msgspec

from .exceptions import PathPart, RowError
from .plain_data import plain
from .protocol import FLOAT64_BASE64, encode_float64, stable_json
from .settings import FORMATS, HOSTS

__all__ = [
    "GEAR_KEY",
    "GearRow",
    "JudgeScores",
    "Judgment",
    "parse_row",
    "parse_gear_spec",
    "parse_judgment",
    "parse_scores",
    "parse_judge_outputs",
    "javascript_string_keys",
]

#: The ``extra_info`` key that holds the rubric.
GEAR_KEY = "gear"

_CONTENT_FIELD = {"canonical": "rubric", "official-gear": "reward_model", **{host: "row" for host in HOSTS}}


@dataclass(frozen=True)
class GearRow:
    """A parsed ``extra_info["gear"]``: its format and content (read-only plain JSON data).

    Attributes:
        format: ``canonical``, ``official-gear`` or a host name.
        content: the canonical rubric, the official ``reward_model``, or the host row.
        source: the JSON text the row came as, or None when it came as a dict.
        key: a digest of the row: of its JSON text when it came as one (equal texts, equal keys),
            else of its format and content (equal content, equal keys). Computed when first
            read: the server's registry reads it, rows scored in-process never need it.
    """

    format: str
    content: Mapping[str, Any]
    source: str | None = field(default=None, repr=False)

    @functools.cached_property
    def key(self) -> str:
        text = self.source if self.source is not None else stable_json([self.format, self.content])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    @functools.cached_property
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
        if self.is_host:
            raise ValueError(f"a {self.format} row is scored through its host, not by rubric reference")
        return len(self.content["criteria" if self.format == "canonical" else "rubrics"])

    def rubric_ref(self) -> dict[str, Any]:
        """The inline rubric reference of a canonical or official row: ``{"rubric": ...}`` / ``{"reward_model": ...}``."""
        if self.is_host:
            raise ValueError(f"a {self.format} row is scored through its host, not by rubric reference")
        return {self.content_field: self.content}

    def scoring_ref(self) -> dict[str, Any]:
        """:meth:`rubric_ref` as the server scores it: each criterion's text (canonical ``text``,
        official ``criterion``) replaced by its rank among the rubric's texts, as digits of equal width.

        The server reads a criterion's text for one thing: to order criteria where exact inference
        needs a tie-break (core/compile/canonical-rank.ts compares texts as JavaScript does). Ranks
        in that order (equal texts, equal ranks) order them the same, so every aggregator's rewards
        are the same floats (tested, gear-exact included). In training rows the texts were over half
        of a ``rubric.scoreColumns`` request (52 KB of JSON per 112 responses) and half of the
        server's time on it. A rubric with a criterion that is not an object with a string text is
        sent as it is (the server names what is wrong). Rubrics registered this way serve scoring
        only: nothing here asks the server for a registered rubric's texts.
        """
        if self.is_host:
            raise ValueError(f"a {self.format} row is scored through its host, not by rubric reference")
        items_field, text_field = ("criteria", "text") if self.format == "canonical" else ("rubrics", "criterion")
        content = self.content
        items = content.get(items_field)
        if type(items) is not list:
            return {self.content_field: content}
        texts: list[str] = []
        for item in items:
            text = item.get(text_field) if type(item) is dict else None
            if type(text) is not str:
                return {self.content_field: content}  # the server names what is wrong
            texts.append(text)
        ranks = _ranks_in_javascript_order(texts)
        return {self.content_field: {**content, items_field: [{**item, text_field: rank} for item, rank in zip(items, ranks)]}}


def _ranks_in_javascript_order(texts: list[str]) -> list[str]:
    """Each text's rank among the distinct ``texts`` in JavaScript's string order (UTF-16 code units,
    which UTF-16-BE bytes compare in), as decimal digits of one width (which compare as the ranks do)."""
    distinct = set(texts)
    # ASCII texts (the usual ones) order the same by code point: sorting them needs no encoding.
    ordered = sorted(distinct) if all(text.isascii() for text in distinct) else sorted(distinct, key=_utf16)
    width = len(str(len(ordered) - 1))
    rank = {text: f"{k:0{width}d}" for k, text in enumerate(ordered)}
    return [rank[text] for text in texts]


def javascript_string_keys(texts: Sequence[str]) -> Sequence[str] | list[bytes]:
    """Keys that compare as JavaScript compares ``texts`` (``<``: by UTF-16 code units): the texts
    themselves when all are ASCII (code points order the same there), else their UTF-16-BE bytes."""
    return texts if all(text.isascii() for text in texts) else [_utf16(text) for text in texts]


def _utf16(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


@dataclass(frozen=True)
class JudgeScores:
    """One response's judge scores in rubric order: ``p`` in [0, 1], optional decisions ``d``."""

    p: tuple[float, ...]
    d: tuple[bool, ...] | None = None

    def to_wire(self, encoding: str | None = None) -> dict[str, Any]:
        """The ``scores`` param (``p`` as a float64-base64 string when ``encoding`` says so)."""
        p: Any = encode_float64(self.p) if encoding == FLOAT64_BASE64 else list(self.p)
        return {"p": p} if self.d is None else {"p": p, "d": list(self.d)}


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


class _NotFinite(Exception):
    """A number json.loads would read as non-finite (NaN, Infinity, -Infinity, or 1e309 overflowing)."""


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite
    return value


def _not_finite(name: str) -> float:
    raise _NotFinite


_fast_loads: Callable[[str], Any] | None
try:
    # Twice as fast as json on rubric rows, and installed wherever verl is (tensordict requires it).
    from orjson import loads as _fast_loads
except ImportError:  # pragma: no cover - depends on the environment
    _fast_loads = None

#: json.loads with these hooks builds a decoder per call; one decoder serves every row.
_FINITE_DECODER = json.JSONDecoder(parse_float=_finite_float, parse_constant=_not_finite)


def read_gear_text(text: str) -> GearRow:
    """``extra_info["gear"]`` as JSON text, read and not remembered (the in-process scorer keeps
    what it compiles from a row, not the row: holding every decoded rubric of a run would cost
    memory, and new memory costs time).

    Raises:
        RowError: naming the malformed field (its path relative to the spec).
        ValueError: the text is not JSON.
    """
    # A new prompt's row is read once per step in training: its key is the text's own digest (equal
    # texts, equal keys; one rubric spelled two ways is registered twice, which the server dedups),
    # not a digest of re-encoded content, and the finiteness walk runs only where the parser met a
    # non-finite number (its hooks see every float and constant: ~1 us a row, where scanning the
    # text with a regex took ~35 us and walking the parsed content more).
    if _fast_loads is not None:
        try:
            content = _fast_loads(text)
        except ValueError:
            pass  # not JSON, or JSON orjson refuses (non-finite numbers, lone surrogates): read below
        else:
            # orjson refuses non-finite numbers (and 1e309), so nothing is left to walk; it reads
            # integers past 64 bits as the nearest double, which every reader here makes of them.
            return _parse_spec(content, (), source=text, walk=False)
    try:
        return _parse_spec(_FINITE_DECODER.decode(text), (), source=text, walk=False)
    except _NotFinite:
        return _parse_spec(json.loads(text), (), source=text, walk=True)


_parse_spec_text = functools.lru_cache(maxsize=4096)(read_gear_text)


def usual_gear_text(text: str) -> tuple[str, dict[str, Any]] | None:
    """The format and content of a row that came as JSON text, when orjson reads it and it has the
    usual shape (an object of ``format`` and its content field, the content an object); None for
    every other text, which :func:`read_gear_text` reads, naming what is wrong. The in-process
    scorer's first reading of a new row: no :class:`GearRow` is built for a row it compiles.

    Official GEAR rows are left to :func:`read_gear_text`: it refuses graph fields (``edges: null``,
    an edge that is not an object) that the service's reader, and so the in-process one, skips.
    """
    if _fast_loads is None:
        return None
    try:
        spec = _fast_loads(text)
    except ValueError:
        return None
    if type(spec) is not dict or len(spec) != 2:
        return None
    form = spec.get("format")
    if type(form) is not str or form == "official-gear" or form not in _CONTENT_FIELD:
        return None
    content = spec.get(_CONTENT_FIELD[form])
    return (form, content) if type(content) is dict else None


def parse_gear_spec(value: Any, path: Sequence[PathPart] = ("extra_info", GEAR_KEY)) -> GearRow:
    """Parses one ``extra_info["gear"]`` value (a dict or its JSON string).

    Args:
        value: the value.
        path: where it sits, for error messages.

    Raises:
        RowError: naming the field that is missing or malformed.
    """
    where = tuple(path)
    if isinstance(value, str):
        try:
            return _parse_spec_text(value)
        except ValueError as error:
            if isinstance(error, RowError):
                raise RowError((*where, *error.path), error.reason) from None
            raise RowError(where, f"is a string but not valid JSON ({error})") from None
    try:
        return _parse_spec_object(value) if isinstance(value, Mapping) else _parse_spec(plain(_json_text(value, where)), ())
    except RowError as error:
        raise RowError((*where, *error.path), error.reason) from None


# The 8 rollouts of a prompt carry the same rubric object (VERL repeats rows by reference), and
# reading one costs ~70 us (copy, finiteness walk, content hash): a GRPO step would spend ~60 ms
# re-reading 112 rubrics 8 times. So a rubric object is read once and remembered by identity
# (holding it, so its id cannot be reused); editing one in place after it was scored is not seen.
_BY_IDENTITY: "OrderedDict[tuple[str, int], tuple[Any, GearRow]]" = OrderedDict()
_BY_IDENTITY_SIZE = 4096
_BY_IDENTITY_LOCK = threading.Lock()


def _parse_spec_object(spec: Mapping[str, Any]) -> GearRow:
    form = spec.get("format")
    field = _CONTENT_FIELD.get(form) if isinstance(form, str) else None
    content = spec.get(field) if field is not None and len(spec) == 2 else None
    if field is None or content is None:
        return _parse_spec(plain(spec), ())
    key = (str(form), id(content))
    with _BY_IDENTITY_LOCK:
        hit = _BY_IDENTITY.get(key)
        if hit is not None and hit[0] is content:
            _BY_IDENTITY.move_to_end(key)
            return hit[1]
    row = _parse_spec(plain(spec), ())
    with _BY_IDENTITY_LOCK:
        _BY_IDENTITY[key] = (content, row)
        while len(_BY_IDENTITY) > _BY_IDENTITY_SIZE:
            _BY_IDENTITY.popitem(last=False)
    return row


def _parse_spec(spec: Any, path: tuple[PathPart, ...], *, source: str | None = None, walk: bool = True) -> GearRow:
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
    if walk:
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
    return GearRow(form, content, source)


def parse_row(extra_info: Any, path: Sequence[PathPart] = ("extra_info",)) -> GearRow:
    """Reads the gear rubric of a VERL row from its ``extra_info``.

    Args:
        extra_info: the row's ``extra_info`` (a dict; VERL passes None when the row has none).
        path: where ``extra_info`` sits, for error messages.

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


#: A probability as usual_scores takes it: a float or an int (not a bool) in [0, 1]; NaN fails both bounds.
_Probability = Annotated[float, msgspec.Meta(ge=0.0, le=1.0)]


class _UsualScores(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    p: list[_Probability]
    d: Union[list[bool], None, msgspec.UnsetType] = msgspec.UNSET


def usual_scores(value: Any) -> tuple[list[float], list[bool] | None] | None:
    """Judge scores in their usual form, checked in C by one ``msgspec.convert``: a dict of ``p``,
    floats and ints (not bools) in [0, 1], no NaN, and optional ``d``, booleans, one per score; as
    (p as floats, d). None for anything else, which :func:`parse_scores` reads, naming the field.
    A tuple for either list, and ``"d": None``, read as parse_scores reads them.

    verl reads one per response, inside its loop, where each call runs cold: one call here in
    place of six checks (paired steps of verl's legacy naive manager: 0.992 +- 0.005 of the step
    with the six)."""
    if type(value) is not dict:
        return None
    try:
        scores = msgspec.convert(value, _UsualScores, strict=True)
    except msgspec.ValidationError:
        return None
    p_list = scores.p
    d_list = scores.d
    if not p_list:
        return None
    if d_list is None or d_list is msgspec.UNSET:
        return p_list, None
    return (p_list, d_list) if len(d_list) == len(p_list) else None


def parse_scores(value: Any, path: Sequence[PathPart]) -> JudgeScores:
    """Reads judge scores ``{"p": [...], "d": [...]?}`` (or their JSON string).

    Raises:
        RowError: naming the field (e.g. ``...p[3]`` for a NaN or a value outside [0, 1]).
    """
    usual = usual_scores(value)
    if usual is not None:
        return JudgeScores(tuple(usual[0]), None if usual[1] is None else tuple(usual[1]))
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
    probabilities: list[float] = []
    for index, item in enumerate(p):
        if isinstance(item, bool) or not isinstance(item, (int, float)):
            raise RowError((*where, "p", index), f"must be a number in [0, 1], got {item!r}")
        if not math.isfinite(item) or not 0 <= item <= 1:
            raise RowError((*where, "p", index), f"must be a number in [0, 1], got {item!r}")
        probabilities.append(float(item) if isinstance(item, float) else item)
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
    return JudgeScores(tuple(probabilities), decisions)


def parse_judge_outputs(value: Any, path: Sequence[PathPart]) -> tuple[str, ...]:
    """Reads a host judge's raw outputs: a list of strings (or its JSON string), one per request.

    Raises:
        RowError: naming the field.
    """
    where = tuple(path)
    outputs = plain(value)
    if isinstance(outputs, str):
        outputs = _json_text(outputs, where)
        if not isinstance(outputs, list):
            raise RowError(where, "must be a list of the judge's raw output strings (or its JSON string)")
    if not isinstance(outputs, list):
        raise RowError(where, f"must be a list of the judge's raw output strings, got {type(outputs).__name__}")
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
