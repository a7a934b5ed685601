"""WritingBench and PLawBench judge outputs read in-process as the service reads them.

adapters/scored/judge-parse.ts reads one output per request of up to 4 criteria as the official
scored code does, reasoning stripped first:
- JSON candidates in the host's order (the text, fence bodies, the first balanced braces, the first
  "{" to the last "}", the text with the closers a cut tail left out: json_candidates.py); item
  keys "1", "01", "r1", "item 1" alike, found nested too, or a list of the items;
- each value coerced and normalized as the host does (scored_values.py): a bare number is the
  score, a boolean or "yes"/"是" a verdict, a numeric string its number; probability-like fields
  before the score; clamped to the item's range;
- no JSON holding the items: the host's regex fallbacks (scored_scan.py).

WritingBench asks a 1-10 score per criterion: p = score / 10. PLawBench (its default ``pi_mode``
prob) splits each criterion into its "(+N分)" subitems (:func:`subitem_points`, the host's
``_extract_point_subitems``) and asks a probability per subitem: p = clamp(sum(probability x
points) / max, 0, 1) with max the criterion's points. met = p >= 0.7. A criterion not read so is
unread: it counts against the response (an unread penalty is applied) and is counted, as the
service counts it. The output the prompt asks for is read first, without the search.

Keys and numeric strings outside ASCII are read as the service reads them (numeric_keys.py,
``py_float``: ASCII digits only). Left to the service (None) is only Python's JSON reader where it
differs from the service's (``json_reads_alike``).
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from .json_candidates import scored_candidates
from .json_reading import BEYOND, NOT_JSON, PY_SPACE, BatchReading, Outcomes, Uncertain, batch_reading, keyed_items, loads_numbers_as_floats, record
from .numeric_keys import numeric_key, numeric_key_dict, top_level_list
from .scored_scan import scan_scored_items, scan_subitem_sections
from .scored_values import SCORED_THRESHOLD, ScoredItem, item_reading

__all__ = ["read_scored", "scored_items", "subitem_points", "SCORED_CHUNK", "SCORED_THRESHOLD"]

#: Criteria per judge request (GEAR_MAX_RUBRICS_PER_JUDGE, adapters/scored/judge-prompt.ts).
SCORED_CHUNK = 4

#: Fields the host reads before ``score`` (a probability times the maximum, or a verdict).
_READ_BEFORE_SCORE = ("normalized_score", "prob_met", "probability", "prob", "p", "criteria_met")


def scored_items(texts: Sequence[str], weights: Sequence[float], scales: Sequence[bool], subitem_mode: bool) -> tuple[ScoredItem, ...]:
    """Each criterion as the host asks it (adapters/scored/format.ts): a 1-10 score (``scales``) has
    the maximum 10, partial points their points (positive, as the row reading requires); in
    PLawBench's mode each is split into its "(+N分)" subitems up to that maximum."""
    items = []
    for text, weight, scale in zip(texts, weights, scales):
        maximum = 10.0 if scale else weight
        items.append((subitem_points(text, maximum) if subitem_mode else None, scale, maximum))
    return tuple(items)


def read_scored(raw: str, items: Sequence[ScoredItem], weights: Sequence[float]) -> BatchReading | None:
    """The readings of one request's criteria (``items``, and ``weights`` whose signs decide what an
    unread one counts as), or None when the service must read the output."""
    count = len(items)
    if not 1 <= count <= SCORED_CHUNK:
        return None
    if items[0][0] is None:
        asked = _scores_as_asked(keyed_items(raw, count)) if all(scale for _, scale, _ in items) else None
    else:
        asked = _subitems_as_asked(keyed_items(raw, count, nested=True), items)
    return asked if asked is not None else batch_reading(raw, lambda text: _outcomes(text, items), weights)


def _scores_as_asked(items: list[dict[str, Any]] | None) -> BatchReading | None:
    """The items the prompt asks for, each an object with a number ``score`` in [1, 10] and none of
    the fields read before it: read "ok", nothing coerced or clamped. Else None."""
    if items is None:
        return None
    p: list[float] = []
    met: list[bool] = []
    for item in items:
        score: Any = item.get("score")
        if type(score) is not float and type(score) is not int or not 1 <= score <= 10:
            return None
        for field in _READ_BEFORE_SCORE:
            if field in item:
                return None
        x = score / 10
        p.append(x)
        met.append(x >= SCORED_THRESHOLD)
    return p, met, 0


def _outcomes(text: str, items: Sequence[ScoredItem]) -> Outcomes:
    count = len(items)
    payload: dict[str, Any] | None = None
    for candidate in scored_candidates(text):
        value = loads_numbers_as_floats(candidate)
        if value is BEYOND:
            raise Uncertain  # json_reads_alike keeps this from happening; never guessed at
        if value is NOT_JSON:
            continue
        payload = numeric_key_dict(value, count)
        if payload is None:
            payload = top_level_list(value, count)
        if payload is not None:
            break
    outcomes: Outcomes = {}
    if payload is None:
        if items[0][0] is not None:
            scan_subitem_sections(text, items, outcomes)
        if not outcomes:
            scan_scored_items(text, items, outcomes)
        return outcomes
    for key, value in payload.items():
        position = numeric_key(key, count)
        if position is not None:
            record(outcomes, position, item_reading(value, *items[position - 1]))
    return outcomes


# The host's \s is Python's whitespace, as adapters/scored/subitems.ts writes it out.
_MARKER = re.compile(f"[(\uff08]{PY_SPACE}*\\+{PY_SPACE}*([0-9]+(?:\\.[0-9]+)?){PY_SPACE}*(?:\u5206{PY_SPACE}*)?[)\uff09]")


def subitem_points(criterion: str, max_points: float) -> tuple[float, ...]:
    """The points of a criterion's "(+N分)" subitems, each clamped to [0, max_points]; the whole
    criterion is one subitem of max_points when it has no marker (adapters/scored/subitems.ts)."""
    found = [float(match.group(1)) for match in _MARKER.finditer(criterion)]
    if not found:
        return (max_points,)
    return tuple([max(0.0, min(max_points, points)) for points in found])


_SUBITEM_KEYS = tuple(str(k) for k in range(1, 65))


def _subitems_as_asked(answered: list[dict[str, Any]] | None, items: Sequence[ScoredItem]) -> BatchReading | None:
    """The items the prompt asks for, each exactly ``{"subitems": {...}}`` with exactly the keys
    "1".."m" of its m subitems, each exactly ``{"prob_met": x}`` with x a number in [0, 1]. Else None."""
    if answered is None:
        return None
    p: list[float] = []
    met: list[bool] = []
    for item, (points_of, _, most) in zip(answered, items):
        if points_of is None or len(item) != 1:
            return None
        answers = item.get("subitems")
        if type(answers) is not dict or len(answers) != len(points_of) or len(points_of) > len(_SUBITEM_KEYS):
            return None
        awarded = 0.0
        for sub_key, points in zip(_SUBITEM_KEYS, points_of):
            answer = answers.get(sub_key)
            if type(answer) is not dict or len(answer) != 1:
                return None
            prob: Any = answer.get("prob_met")
            if type(prob) is not float and type(prob) is not int or not 0 <= prob <= 1:
                return None
            awarded += prob * points  # the host adds left to right from 0
        x = max(0.0, min(1.0, max(0.0, min(most, awarded)) / most))
        p.append(x)
        met.append(x >= SCORED_THRESHOLD)
    return p, met, 0
