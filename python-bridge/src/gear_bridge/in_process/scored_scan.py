"""The scored host's regex fallbacks, for a WritingBench or PLawBench output in which no JSON
candidate holds the items (a cut output, prose between them), read as the service reads them
(adapters/scored/judge-parse.ts ``scanSubitemSections`` and ``scanScoredItems``, forward scans of
the official ``_parse_batch_subitem_response_regex`` and ``_parse_batch_response_regex``): each of
the host's patterns is tried at every run of digits not inside an earlier match, as Python's
finditer finds them. Literals match ASCII letters in any case, whitespace is Python's."""

from __future__ import annotations

import re
from typing import Sequence

from .item_scan import DIGIT_RUN, keyed_matches
from .json_reading import PY_SPACE, Outcomes, record
from .numeric_keys import numeric_key
from .scored_values import ScoredItem, normalized

__all__ = ["scan_subitem_sections", "scan_scored_items"]

_W = PY_SPACE + "*"
# What follows "?(\d+) in the host's patterns.
_SECTION_HEAD = re.compile(f'"?{_W}:{_W}\\{{{_W}"[sS][uU][bB][iI][tT][eE][mM][sS]"{_W}:{_W}\\{{')
_PROBABILITY = re.compile(
    f'"?{_W}:{_W}\\{{{_W}"[pP][rR][oO][bB]_[mM][eE][tT]"{_W}:{_W}([-+]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?){_W}\\}}')
_ITEM_OPEN = re.compile(f'"?{_W}:{_W}\\{{')
_BRACE = re.compile("[{}]")
# Every position of a score key followed by its unsigned number (a lookahead finds overlapping ones).
_SCORE_AT = re.compile(f'(?="(?:score|awarded_points)"{_W}:{_W}([0-9]+(?:\\.[0-9]+)?|\\.[0-9]+))')


def scan_subitem_sections(text: str, items: Sequence[ScoredItem], outcomes: Outcomes) -> None:
    """scanSubitemSections (PLawBench): sections opened by ``"k": {"subitems": {`` headers naming an
    item, each read for its ``"j": {"prob_met": x}`` subitems up to the next such header."""
    count = len(items)
    headers = []
    for digits, opened, match in keyed_matches(text, _SECTION_HEAD):
        position = numeric_key(digits, count)
        if position is not None:
            headers.append((position, opened, match.end()))
    for h, (position, _, end) in enumerate(headers):
        section = text[end:headers[h + 1][1] if h + 1 < len(headers) else len(text)]
        answers = {digits: {"prob_met": float(match.group(1))} for digits, _, match in keyed_matches(section, _PROBABILITY)}
        if answers:
            record(outcomes, position, normalized({"subitems": answers}, *items[position - 1]))


def scan_scored_items(text: str, items: Sequence[ScoredItem], outcomes: Outcomes) -> None:
    """scanScoredItems: ``"k": {...}`` objects without nested braces holding ``"score"`` or
    ``"awarded_points"`` with an unsigned number (the last in the object), read as the item's score."""
    count = len(items)
    consumed = 0
    for run in DIGIT_RUN.finditer(text):
        if run.start() < consumed:
            continue
        opened = _ITEM_OPEN.match(text, run.end())
        if opened is None:
            continue
        body_start = opened.end()
        brace = _BRACE.search(text, body_start)
        if brace is None or brace.group() != "}":
            continue
        score = _last_score(text[body_start:brace.start()])
        if score is None:
            continue
        consumed = brace.end()
        position = numeric_key(run.group(), count)
        if position is not None:
            record(outcomes, position, normalized({"score": float(score)}, *items[position - 1]))


def _last_score(body: str) -> str | None:
    """The number after the last score key (any ASCII case) in ``body``. Keys are found in its
    lower-cased text where lowering keeps its length, as the service's toLowerCase() does (only
    "\\u0130" lowers to two characters; no other character lowers into a key's letters)."""
    lower = body.lower()
    found = None
    for found in _SCORE_AT.finditer(lower if len(lower) == len(body) else body):
        pass
    return None if found is None else found.group(1)
