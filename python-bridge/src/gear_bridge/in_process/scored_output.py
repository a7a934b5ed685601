"""WritingBench and PLawBench judge outputs read in-process where the reading is certain.

adapters/scored/judge-parse.ts reads one output per request of up to 4 criteria as the official
scored code does: reasoning stripped, JSON candidates in the host's order, item keys "1", "01",
"r1", "item 1" alike (found nested too), values coerced (a bare number is the score, a boolean or
a yes/no word a verdict, a numeric string its number), probability-like fields before the score,
and the score clamped to 1..10; p = score / 10, met = p >= 0.7. Here the items the prompt asks
for are read: exactly the keys "1".."k", each an object with a number ``score`` in [1, 10] and
none of the fields read before it (``normalized_score``, ``prob_met``, ``probability``, ``prob``,
``p``, ``criteria_met``). They are found as the service finds them: the whole output as asked
(``keyed_items``), else the service's search (:func:`_found_items`: prose around the JSON, fences,
the object nested under another key, a list of the items). Their judgments all read "ok", so no
failure policy applies. Anything else (a cut output the service repairs or scans, clamping,
coercion, a missing item) goes to the service: None.

PLawBench (its default ``pi_mode`` prob) splits each criterion into its "(+N分)" subitems
(:func:`subitem_points`, the host's ``_extract_point_subitems``) and asks a probability per
subitem: p = clamp(sum(probability x points) / max, 0, 1) with max the criterion's points. Read
here only as its prompt asks (its items found as above): keys "1".."k", each exactly
``{"subitems": {...}}`` with exactly the keys "1".."m" of its m subitems, each exactly
``{"prob_met": x}`` with x a number in [0, 1].
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from .json_candidates import scored_candidates
from .json_reading import BEYOND, NOT_JSON, PY_SPACE, items_of, json_reads_alike, keyed_items, loads, strip_reasoning
from .numeric_keys import Uncertain, numeric_key_dict, top_level_list

__all__ = ["read_scored_output", "read_subitem_output", "subitem_points", "SCORED_CHUNK", "SCORED_THRESHOLD"]

#: Criteria per judge request (GEAR_MAX_RUBRICS_PER_JUDGE, adapters/scored/judge-prompt.ts).
SCORED_CHUNK = 4
#: score_met_threshold: met = p >= 0.7 (the official default).
SCORED_THRESHOLD = 0.7

#: Fields the host reads before ``score`` (a probability times the maximum, or a verdict).
_READ_BEFORE_SCORE = ("normalized_score", "prob_met", "probability", "prob", "p", "criteria_met")


def read_scored_output(raw: str, count: int) -> tuple[list[float], list[bool]] | None:
    """The probabilities and verdicts of the ``count`` criteria of one request, or None when the
    service must read the output."""
    items = (keyed_items(raw, count) or _found_items(raw, count)) if 1 <= count <= SCORED_CHUNK else None
    if items is None:
        return None
    p: list[float] = []
    met: list[bool] = []
    for item in items:
        score: Any = item.get("score")
        if type(score) is not float and type(score) is not int or not 1 <= score <= 10:
            return None  # missing, not a number, or clamped by the service
        for field in _READ_BEFORE_SCORE:
            if field in item:
                return None
        x = score / 10
        p.append(x)
        met.append(x >= SCORED_THRESHOLD)
    return p, met


def _found_items(raw: str, count: int) -> list[dict[str, Any]] | None:
    """The items of the payload the service finds in an output it must search (prose around the
    JSON, a fence, a list, the object nested under another key), when that payload is the one the
    prompt asks for: exactly the keys "1".."count", each an object. Searched as the service
    searches: reasoning stripped, the scored parser's candidates in order, the first JSON value
    holding an object with item keys (or a list) taken. None where no candidate before the last
    (closers appended to a cut tail) holds one (the regex fallbacks and that candidate are the
    service's), or where Python may read a key differently (outside ASCII)."""
    text = strip_reasoning(raw)
    if not json_reads_alike(text):
        return None
    payload: dict[str, Any] | None = None
    try:
        for candidate in scored_candidates(text):
            value = loads(candidate)
            if value is BEYOND:
                return None  # json_reads_alike keeps this from happening; never guessed at
            if value is NOT_JSON:
                continue
            payload = numeric_key_dict(value, count)
            if payload is None:
                payload = top_level_list(value, count)
            if payload is not None:
                break
    except Uncertain:
        return None
    return items_of(payload, count)


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


def read_subitem_output(raw: str, subitems: Sequence[Sequence[float]], maxima: Sequence[float]) -> tuple[list[float], list[bool]] | None:
    """The probabilities and verdicts of one PLawBench request's criteria (their subitems' points
    and their maxima, in request order), or None when the service must read the output."""
    count = len(subitems)
    items = (keyed_items(raw, count, nested=True) or _found_items(raw, count)) if 1 <= count <= SCORED_CHUNK else None
    if items is None:
        return None
    p: list[float] = []
    met: list[bool] = []
    for item, points_of, most in zip(items, subitems, maxima):
        if len(item) != 1:
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
    return p, met
