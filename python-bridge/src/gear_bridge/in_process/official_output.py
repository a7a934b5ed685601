"""The official GEAR batch judge's output (host ``gear``) read in-process as the service reads it.

adapters/official-gear/judge-parse.ts reads one output per response, for every judged criterion,
as the official parser (``_parse_batch_grading_response``) does, reasoning stripped first:
- JSON candidates in the host's order (the stripped text, each fence body, the first balanced
  braces, each then with ``parse_json_to_dict``'s retries: fence stripped, first "{" to last
  "}"); the first whose value holds an object with item keys wins; keys "1", "01", "r1",
  "item 1" all name item 1, searched in nested objects too;
- no such JSON: the host's regex fallback reads each complete
  ``"k": {"criteria_met": b, "prob_met": x}`` it finds;
- ``criteria_met`` must be a boolean, ``prob_met`` a finite number (or what ``float()`` reads so),
  clamped to [0, 1] and flipped to 1 - p when it contradicts the verdict.
A criterion not read so is unread: it counts against the response (an unread penalty is applied)
and is counted. The output the prompt asks for (plain JSON keyed "1".."n") is read first, without
the search.

Keys and numeric strings outside ASCII are read as the service reads them (numeric_keys.py,
``py_float``: ASCII digits only). Left to the service (None) is only Python's JSON reader where it
differs from the service's (``json_reads_alike``).
"""

from __future__ import annotations

import re
from typing import Any, Iterator, Sequence

from .item_scan import keyed_matches
from .json_candidates import json_candidates, without_outer_fence
from .json_reading import BEYOND, NOT_JSON, PY_SPACE, BatchReading, Outcomes, Uncertain, batch_reading, keyed_items, loads, py_float, record
from .numeric_keys import numeric_key, numeric_key_dict

__all__ = ["read_batch_output"]


def read_batch_output(raw: str, count: int, weights: Sequence[float]) -> BatchReading | None:
    """The readings of ``count`` judged criteria (``weights`` theirs, whose signs decide what an
    unread one counts as), or None when the service must read the output."""
    asked = _as_asked(raw, count)
    return asked if asked is not None else batch_reading(raw, lambda text: _outcomes(text, count), weights)


def _as_asked(raw: str, count: int) -> BatchReading | None:
    """The output the prompt asks for, every item read "ok" (nothing clamped or flipped), else None."""
    items = keyed_items(raw, count)
    if items is None:
        return None
    p: list[float] = []
    met: list[bool] = []
    for item in items:
        verdict = item.get("criteria_met")
        prob: Any = item.get("prob_met")
        if type(verdict) is not bool or (type(prob) is not float and type(prob) is not int):
            return None
        if not 0 <= prob <= 1 or (prob < 0.5 if verdict else prob > 0.5):
            return None
        p.append(prob + 0.0)  # the service clamps -0 to 0
        met.append(verdict)
    return p, met, 0


def _outcomes(text: str, count: int) -> Outcomes:
    payload: dict[str, Any] | None = None
    for candidate in json_candidates(text):
        value = _load_candidate(candidate)
        if value is NOT_JSON:
            continue
        payload = numeric_key_dict(value, count)
        if payload is not None:
            break
    outcomes: Outcomes = {}
    if payload is None:
        _scan_item_verdicts(text, count, outcomes)
        return outcomes
    for key, value in payload.items():
        position = numeric_key(key, count)
        if position is not None:
            record(outcomes, position, _verdict(value) if type(value) is dict else None)
    return outcomes


def _load_candidate(candidate: str) -> Any:
    """json.loads, then the host's parse_json_to_dict retries: an outer fence stripped, then the
    text from the first "{" to the last "}". NOT_JSON when none reads."""
    for text in _candidate_texts(candidate):
        value = loads(text)
        if value is BEYOND:
            raise Uncertain  # json_reads_alike keeps this from happening; never guessed at
        if value is not NOT_JSON:
            return value
    return NOT_JSON


def _candidate_texts(candidate: str) -> Iterator[str]:
    yield candidate
    stripped = without_outer_fence(candidate.strip(), json_optional=True)
    yield stripped
    first = stripped.find("{")
    last = stripped.rfind("}")
    if first >= 0 and last >= first:
        yield stripped[first:last + 1]


def _verdict(fields: dict[str, Any]) -> tuple[float, bool] | None:
    """_normalize_grading_result, except that a prob_met float() cannot read finitely is unread."""
    met = fields.get("criteria_met")
    if type(met) is not bool:
        return None
    prob = fields.get("prob_met")
    x = _finite_float(prob)
    return None if x is None else _probability_verdict(met, x)


def _finite_float(value: Any) -> float | None:
    """Python's float(value), where it is finite; None where it raises or is not."""
    x = py_float(value)
    return x if x is not None and x - x == 0 else None


def _probability_verdict(met: bool, x: float) -> tuple[float, bool]:
    """prob_met clamped to [0, 1], then read as 1 - p where it contradicts criteria_met."""
    p = 0.0 if x <= 0 else 1.0 if x > 1 else x  # Math.max(0, Math.min(1, x)): -0 is 0
    if (met and p < 0.5) or (not met and p > 0.5):
        return 1 - p, met
    return p, met


def _scan_item_verdicts(text: str, count: int, outcomes: Outcomes) -> None:
    """_parse_batch_response_regex: every ``"?k"?: {"criteria_met": true|false, "prob_met": x}`` in
    the text (literals in any ASCII case), fields in that order, in finditer order."""
    for digits, _, found in keyed_matches(text, _ITEM_VERDICT):
        position = int(digits) if len(digits) <= 15 else 0
        if 1 <= position <= count:
            record(outcomes, position, _probability_verdict(found.group(1).lower() == "true", float(found.group(2))))


_PY_WS = PY_SPACE + "*"  # \s as the service's scan reads it
# Everything after "?(\d+) of the host's pattern; [0-9]*\.?[0-9]+ is read whole and greedy, as a
# "}" must follow it. ASCII letters only fold, as in the service's scan.
_ITEM_VERDICT = re.compile(
    f'"?{_PY_WS}:{_PY_WS}\\{{{_PY_WS}"[cC][rR][iI][tT][eE][rR][iI][aA]_[mM][eE][tT]"{_PY_WS}:{_PY_WS}([tT][rR][uU][eE]|[fF][aA][lL][sS][eE])'
    f'{_PY_WS},{_PY_WS}"[pP][rR][oO][bB]_[mM][eE][tT]"{_PY_WS}:{_PY_WS}([0-9]*\\.?[0-9]+){_PY_WS}\\}}'
)
