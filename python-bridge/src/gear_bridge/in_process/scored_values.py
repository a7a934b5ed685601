"""One WritingBench or PLawBench item's judgment, read as the service reads it
(adapters/scored/judge-parse.ts: ``coerce``, ``normalize`` and the subitem sums, the official
``_coerce_scored_payload_value`` and ``_normalize_scored_result``).

An item is asked as WritingBench asks (``subitems`` None: one score) or as PLawBench asks (its
"(+N分)" subitems' points: a probability each, p = sum(probability x points) / its maximum); its
score type is a 1-10 scale (``scale``: maximum 10, p = score / 10) or partial points (maximum its
points): each host's own by default, or the item's ``score_type``. The service's defaults are the
only ones it runs: threshold 0.7, PLawBench's ``pi_mode`` prob. A value is
read as a probability-like field, a verdict, the score or the subitems, coerced and clamped as the
service does; None where the service reads it as unread (it then counts against the response).
Numbers come as floats (``loads_numbers_as_floats``), as the service's are JavaScript numbers.
"""

from __future__ import annotations

from typing import Any, Sequence

from .json_reading import py_float

__all__ = ["ScoredItem", "SCORED_THRESHOLD", "item_reading", "normalized", "subitem_bool"]

#: An item: its subitems' points (PLawBench) or None (WritingBench), whether its score type is the
#: 1-10 scale (else partial points), and its maximum (10, or its points).
ScoredItem = tuple[Sequence[float] | None, bool, float]

#: score_met_threshold: met = p >= 0.7 (the official default).
SCORED_THRESHOLD = 0.7

_DIRECT_FIELDS = ("normalized_score", "prob_met", "probability", "prob", "p")
_SUBITEM_PAYLOAD_KEYS = ("subitems", "items", "criteria")
_PROBABILITY_KEYS = ("prob_met", "probability", "prob", "p", "score")
_VERDICT_KEYS = ("criteria_met", "met", "satisfied", "present", "fulfilled", "hit")
_TRUE_WORDS = frozenset(["true", "yes", "present", "met", "satisfied", "fulfilled", "hit", "1", "\u662f", "\u6ee1\u8db3"])
_FALSE_WORDS = frozenset(["false", "no", "not_present", "not present", "unmet", "not_met", "0", "\u5426", "\u4e0d\u6ee1\u8db3"])


def item_reading(value: Any, subitems: Sequence[float] | None, scale: bool, maximum: float) -> tuple[float, bool] | None:
    """coerce, then normalize: the (p, met) of one item's value (a JSON value, numbers as floats)."""
    coerced = _coerced(value, subitems, scale)
    return None if coerced is None else normalized(coerced, subitems, scale, maximum)


def _coerced(value: Any, subitems: Sequence[float] | None, scale: bool) -> dict[str, Any] | None:
    """coerce: the item's judgment as an object, or None (unread)."""
    kind = type(value)
    if kind is dict:
        return value  # type: ignore[no-any-return]  # checked to be a dict
    if kind is bool:
        return {"criteria_met": value}
    if kind is float:
        return _coerced_number(value, subitems, scale)
    if kind is str:
        word = subitem_bool(value)
        # Asked for one score, "1" is a score of 1 to the judge but "met" to the host's word list: unread.
        if word is not None and subitems is None and value.strip() in ("0", "1"):
            return None
        if word is not None:
            return {"criteria_met": word}
        x = py_float(value)
        return None if x is None else _coerced_number(x, subitems, scale)
    return None


def _coerced_number(x: float, subitems: Sequence[float] | None, scale: bool) -> dict[str, Any] | None:
    if x - x != 0:
        return None  # NaN or infinite
    if subitems is not None and 0 <= x <= 1:
        return {"prob_met": x}
    return {"score" if scale else "awarded_points": x}


def normalized(raw: dict[str, Any], subitems: Sequence[float] | None, scale: bool, maximum: float) -> tuple[float, bool] | None:
    """normalize: awarded points -> p = awarded / maximum clamped to [0, 1], met = p >= 0.7."""
    points = _probability_subitems(raw, subitems, maximum) if subitems is not None else None
    if points is None:
        points = _direct_score(raw, maximum)
        if points is None:
            points = _raw_score(raw, scale, maximum)
    if points is None or isinstance(points, _Unread):
        return None  # _raw_score never gives None: the guard only narrows the type
    p = _clamp(points / maximum, 0.0, 1.0)
    return p, p >= SCORED_THRESHOLD


class _Unread:
    """What _direct_score, _raw_score and the subitem sum give where the service's reading is
    unread (their None is "no such field: read on")."""


_UNREAD = _Unread()


def _clamp(x: float, low: float, high: float) -> float:
    """Math.max(low, Math.min(high, x)): -0 clamped at a bound of 0 is 0."""
    y = high if x > high else x
    return low if y <= low else y


def _finite(value: Any) -> float | None:
    """readFiniteNumber: the finite number float() reads, else None (unread)."""
    x = py_float(value)
    return x if x is not None and x - x == 0 else None


def _direct_score(raw: dict[str, Any], maximum: float) -> float | _Unread | None:
    """directScore: a probability-like field times the maximum, else criteria_met all or nothing."""
    for key in _DIRECT_FIELDS:
        if key in raw:
            x = _finite(raw[key])
            return _UNREAD if x is None else _clamp(x, 0.0, 1.0) * maximum
    if "criteria_met" in raw:
        met = subitem_bool(raw["criteria_met"])
        if met is not None:
            return maximum if met else 0.0
    return None


def _raw_score(raw: dict[str, Any], scale: bool, maximum: float) -> float | _Unread:
    """rawScore: the score (awarded points for PLawBench) clamped to its range; missing, null or a
    boolean is unread (the host reads them as the minimum, or 1 or 0)."""
    first, second = ("score", "awarded_points") if scale else ("awarded_points", "score")
    value = raw.get(first if first in raw else second)
    if value is None or type(value) is bool:
        return _UNREAD
    x = _finite(value)
    return _UNREAD if x is None else _clamp(x, 1.0 if scale else 0.0, maximum)


def _probability_subitems(raw: dict[str, Any], subitems: Sequence[float], maximum: float) -> float | _Unread | None:
    """probSubitems: the sum of subitem probability x subitem points, clamped to [0, maximum]; a
    subitem left unanswered counts 0 (the service reads it "partial"); none answered is unread.
    None without a subitem payload (the direct fields are read instead)."""
    payload = None
    for key in _SUBITEM_PAYLOAD_KEYS:
        payload = raw.get(key)
        if payload is not None:
            break
    if type(payload) is not dict and type(payload) is not list:
        return None
    points = 0.0
    answered = 0
    for k, worth in enumerate(subitems, start=1):
        s = _subitem_probability(_subitem_value(payload, k))
        if s is not None:
            answered += 1
            points += s * worth
    return _UNREAD if answered == 0 else _clamp(points, 0.0, maximum)


def _subitem_value(payload: Any, k: int) -> Any:
    """Subitem k (1-based) of a list, or under "k", "item_k", "subitem_k", "criterion_k"."""
    if type(payload) is list:
        return payload[k - 1] if k <= len(payload) else None
    for key in (str(k), f"item_{k}", f"subitem_{k}", f"criterion_{k}"):
        if key in payload:
            return payload[key]
    return None


def _subitem_probability(value: Any) -> float | None:
    """subitemProbability: the first of prob_met/probability/prob/p/score in an object (followed
    down), a verdict as 1 or 0, else a finite number (or numeric string) clamped to [0, 1]."""
    while type(value) is dict:
        key = next((k for k in _PROBABILITY_KEYS if k in value), None)
        if key is None:
            break
        value = value[key]
    verdict = subitem_bool(value)
    if verdict is not None:
        return 1.0 if verdict else 0.0
    if type(value) is float or type(value) is str:
        x = _finite(value)
        return None if x is None else _clamp(x, 0.0, 1.0)
    return None


def subitem_bool(value: Any) -> bool | None:
    """subitemBool: a boolean, 1 or 0, a yes/no word, or an object holding one of those under a
    verdict key. (Python's lower() is JavaScript's toLowerCase() on every text that can lower to
    a word: the words outside ASCII are caseless.)"""
    kind = type(value)
    if kind is bool:
        return value  # type: ignore[no-any-return]  # checked to be a bool
    if kind is float:
        return True if value == 1 else False if value == 0 else None
    if kind is str:
        word = value.strip().lower()
        return True if word in _TRUE_WORDS else False if word in _FALSE_WORDS else None
    if kind is dict:
        for key in _VERDICT_KEYS:
            nested = subitem_bool(value.get(key))
            if nested is not None:
                return nested
    return None
