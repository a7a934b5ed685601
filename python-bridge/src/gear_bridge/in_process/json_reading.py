"""What the in-process readers of judge outputs share (grader_output.py, rar_output.py,
official_output.py, scored_output.py): the service's reasoning stripping, Python's JSON reader and
where it reads as the service's does, and the first checks of a per-criterion reader."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable, Final, Sequence

__all__ = ["Uncertain", "PY_SPACE", "JS_SPACE", "UNREAD", "NOT_JSON", "BEYOND", "strip_reasoning", "has_reasoning_tags", "first_reading", "keyed_items", "items_of", "json_reads_alike", "loads",
           "loads_numbers_as_floats", "py_float", "skip_space", "Outcomes", "record", "BatchReading", "policy_applied", "batch_reading"]


class Uncertain(Exception):
    """Python's reading of a piece of the output may not be the service's: leave it to the service."""


#: An output that holds no verdict the host could read (it counts against the response).
UNREAD = "unread"

# Reasoning tags in any case (a superset of what the service strips: it declines more, never less).
_THINK = re.compile(r"<(/?)think>", re.IGNORECASE)
# The tags the service strips: JavaScript's /<(\/?)think>/gi, whose case folding (without the u
# flag) maps no character outside ASCII to one inside it, so only ASCII letters fold; Python's
# IGNORECASE would also take the Kelvin sign and the dotless i.
_TAG = re.compile(r"<(/?)[tT][hH][iI][nN][kK]>")


#: Python's whitespace (str.isspace; what \\s matches in a str pattern) as a regex class: the
#: service's PY_WHITESPACE_CLASS (adapters/judge-output/python-text.ts).
PY_SPACE: Final = "[\t\n\x0b\x0c\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"

#: JavaScript's whitespace (String.prototype.trim(); what \\s matches in a JavaScript regex), where the
#: service trims with it: not Python's, which has \\x1c-\\x1f and \\x85 and lacks \\ufeff.
JS_SPACE: Final = "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"

#: :func:`loads`' answer for a text that is not JSON.
NOT_JSON: Final = object()
#: :func:`loads`' answer where Python's reader went where the service's does not follow.
BEYOND: Final = object()
# The service's JSON reader stops at 512 levels of nesting; Python's reads on.
_BRACKETS_LEFT = 512
# Python refuses to convert an integer literal of more digits (sys.get_int_max_str_digits).
_LONG_INTEGER = re.compile("[0-9]{4300}")


def json_reads_alike(text: str) -> bool:
    """Whether Python's ``json.loads`` reads every JSON text within ``text`` as the service's reader
    does (adapters/judge-output/python-json.ts reproduces it): not where that reader stops (512
    levels of nesting: a text with 512 brackets is not taken), nor an integer of over 4,300 digits
    (Python refuses to convert it; the service reads it)."""
    return text.count("{") + text.count("[") < _BRACKETS_LEFT and (len(text) < 4300 or _LONG_INTEGER.search(text) is None)


def skip_space(text: str, at: int) -> int:
    """The first position at or after ``at`` that is not Python's whitespace (str.isspace), as the
    service's skipPyWhitespace finds it."""
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def loads(text: str, object_pairs_hook: Any = None) -> Any:
    """``json.loads(text)``: the value, :data:`NOT_JSON`, or :data:`BEYOND` (a RecursionError)."""
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except RecursionError:
        return BEYOND
    except ValueError:
        return NOT_JSON


# Every JSON number a float, as the service's reader gives it: an integer past float64 is infinite
# there too, and no integer is refused for its digits.
_FLOAT_DECODER = json.JSONDecoder(parse_int=float)


def loads_numbers_as_floats(text: str) -> Any:
    """:func:`loads`, every number read as a float (as the service reads it: a JavaScript number)."""
    try:
        return _FLOAT_DECODER.decode(text)
    except RecursionError:
        return BEYOND
    except ValueError:
        return NOT_JSON


def py_float(value: Any) -> float | None:
    """pyFloat (adapters/judge-output/item-reading.ts): Python's ``float(value)`` of a JSON value (a
    number, a boolean, a numeric string); None where it raises, or for null, an object or a list.
    A string is read as the service's pyFloatOfString reads it: stripped of Python's whitespace,
    then ASCII only. (Python's ``float()`` also reads other Unicode digits, and strips \\x1c-\\x1f
    only from a text with characters outside ASCII; stripped first, an ASCII text is read alike.)"""
    kind = type(value)
    if kind is float:
        return value  # type: ignore[no-any-return]  # checked to be a float
    if kind is bool:
        return 1.0 if value else 0.0
    if kind is int:
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf  # the service's number is infinite
    if kind is str:
        text = value.strip()
        if not text.isascii():
            return None
        try:
            return float(text)
        except ValueError:
            return None
    return None


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is no JSON number")


_ITEM_KEYS = tuple(str(k) for k in range(1, 513))  # "1".."512": the service's default criteria limit
# NaN and Infinity are no finite number the hosts read.
_FINITE_DECODER = json.JSONDecoder(parse_constant=_refuse)


def strip_reasoning(raw: str) -> str:
    """The output without its reasoning, as the service strips it before any host reads it
    (adapters/judge-output/reasoning.ts): ``<think>...</think>`` blocks removed (the first
    ``</think>`` closes), everything before a ``</think>`` that opens nothing removed, and
    everything from an unclosed ``<think>`` on. Tags that the removal brings together stay in the
    text, as in the service's."""
    if "<" not in raw:
        return raw
    if raw.startswith("<think>") and raw.count("<") == 2:
        end = raw.find("</think>")
        if end > 0:
            return raw[end + 8:]  # one block first, the usual reasoning output: no other tag can be there
    kept: list[str] = []
    start = 0
    open_at = -1
    for tag in _TAG.finditer(raw):
        closing = tag.group(1) == "/"
        if open_at >= 0:
            if closing:
                open_at = -1
                start = tag.end()
        elif closing:
            kept = []
            start = tag.end()
        else:
            kept.append(raw[start:tag.start()])
            open_at = tag.start()
    if open_at < 0:
        kept.append(raw[start:])
    return "".join(kept)


def has_reasoning_tags(raw: str) -> bool:
    """Whether the output holds a reasoning tag, which the service strips with what it encloses."""
    return "<" in raw and _THINK.search(raw) is not None


def first_reading(raw: str | None, usual: re.Pattern[str]) -> tuple[bool | str | None, str | None]:
    """What a per-criterion reader does first, as the service does: no output is unread; reasoning
    is stripped; the usual verdict (``usual`` matched whole) is its group 1 == "true"; a text that
    Python's JSON reader may read differently from the service's is left to it (None). Returns
    (the answer, None) when that decides, else (None, the text without reasoning) to read on."""
    if raw is None:
        return UNREAD, None  # no output for this criterion
    text = strip_reasoning(raw)
    matched = usual.fullmatch(text)
    if matched is not None:
        return matched.group(1) == "true", None
    if not json_reads_alike(text):
        return None, None
    return None, text


def keyed_items(raw: str, count: int, nested: bool = False) -> list[dict[str, Any]] | None:
    """A batch output as its prompt asks for it: plain ASCII JSON without ``\\u`` escapes, lists
    or reasoning tags, one object with exactly the keys "1".."count", each an object (the whole text
    is then the service's first JSON candidate, and that object its payload). Unless ``nested``
    (the caller checks the items' own objects), nothing is nested below the items: braces are
    counted, so a brace inside a string declines it too. The items in key order; a repeated key
    keeps its last value, as in the service (Python's json), which only notes it. None for
    anything else. Reasoning is stripped first, as the service strips it."""
    raw = strip_reasoning(raw)
    if count > len(_ITEM_KEYS) or not raw.isascii() or "\\u" in raw or "[" in raw or has_reasoning_tags(raw):
        return None
    if not nested and raw.count("{") != count + 1:
        return None
    try:
        value = _FINITE_DECODER.decode(raw)
    except (ValueError, RecursionError):
        return None
    return items_of(value, count)


def items_of(payload: Any, count: int) -> list[dict[str, Any]] | None:
    """The items of a payload with exactly the keys "1".."count", each an object, in key order; else None."""
    if type(payload) is not dict or len(payload) != count or count > len(_ITEM_KEYS):
        return None
    items = [payload.get(key) for key in _ITEM_KEYS[:count]]
    for item in items:
        if type(item) is not dict:
            return None
    return items  # type: ignore[return-value]  # every item checked to be a dict


#: A batch output's reading per item position: (p, met), or None where unread.
Outcomes = dict[int, "tuple[float, bool] | None"]


def record(outcomes: Outcomes, position: int, read: tuple[float, bool] | None) -> None:
    """BatchOutcomes.record: a reading replaces anything before it; an unread one never replaces a reading."""
    if read is not None or outcomes.get(position) is None:
        outcomes[position] = read


#: The probabilities, verdicts (the failure policy applied to unread ones) and the unread count.
BatchReading = tuple[list[float], list[bool], int]


def policy_applied(outcomes: Outcomes, weights: Sequence[float]) -> BatchReading:
    """The readings of positions 1..len(weights), the pessimistic failure policy applied to the
    unread ones (adapters/judge-output/failure-policy.ts), and how many were unread."""
    p: list[float] = []
    met: list[bool] = []
    unread = 0
    for position, weight in enumerate(weights, start=1):
        read = outcomes.get(position)
        if read is None:
            # Never credit: an unread penalty counts as applied, an unread criterion as not met.
            unread += 1
            p.append(1.0 if weight < 0 else 0.0)
            met.append(weight < 0)
        else:
            p.append(read[0])
            met.append(read[1])
    return p, met, unread


def batch_reading(raw: str, outcomes_of: Callable[[str], Outcomes], weights: Sequence[float]) -> BatchReading | None:
    """A batch output read as the service reads it: reasoning stripped, the host's reading
    (``outcomes_of`` the text), then the failure policy; None where Python's reading may not be the
    service's (``json_reads_alike``, or :class:`Uncertain` raised while reading)."""
    text = strip_reasoning(raw)
    if not json_reads_alike(text):
        return None
    try:
        outcomes = outcomes_of(text)
    except Uncertain:
        return None
    return policy_applied(outcomes, weights)
