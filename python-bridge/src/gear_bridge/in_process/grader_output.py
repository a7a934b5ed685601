"""HealthBench-grader outputs (RuscaRL, MeRF) read in-process as the service reads them.

adapters/ruscarl/judge-parse.ts reads an output as RuscaRL reads it, reasoning stripped first
(``strip_reasoning``, as the service strips it): the text without an outer ```json fence as JSON;
else the first brace-balanced ``{...}`` with the quotes inside its explanations escaped, as JSON;
else the first ``"criteria_met": true|false`` anywhere. A verdict is a boolean ``criteria_met`` of
an object; anything else is unread and counts against the response. The service reproduces
Python's ``json.loads`` (adapters/judge-output/python-json.ts) and Python's whitespace; here they
are Python's own, and every step is the service's, in its order.

Left to the service (None) is only what Python's ``json.loads`` reads differently from the
service's: nesting the service bounds (512 levels: any output with 512 brackets is left), and an
integer of over 4,300 digits (Python refuses to convert it; the service reads it).
"""

from __future__ import annotations

import re
from typing import Any

from .json_candidates import without_outer_fence
from .json_reading import BEYOND, NOT_JSON, UNREAD, first_reading, loads, skip_space

__all__ = ["UNREAD", "read_verdict"]

_WS = "[ \t\n\r]*"
_CLEAN = re.compile(
    rf'{_WS}(?:```json{_WS})?\{{{_WS}"explanation"{_WS}:{_WS}"[^"\\<\x00-\x1f]*"{_WS},{_WS}"criteria_met"{_WS}:{_WS}(true|false){_WS}\}}{_WS}(?:```)?{_WS}'
)
_KEY = '"explanation"'
_MET = '"criteria_met"'
_ESCAPED_QUOTE = "###ESCAPED_QUOTE###"


def read_verdict(raw: str | None) -> bool | str | None:
    """True / False (criteria met or not), :data:`UNREAD`, or None when the service must read it."""
    answer, text = first_reading(raw, _CLEAN)
    if text is None:
        return answer
    whole = loads(without_outer_fence(text.strip(), json_optional=False))
    if whole is BEYOND:
        return None
    if whole is not NOT_JSON:
        return _verdict_of(whole) if type(whole) is dict else UNREAD  # JSON, but no object: no repair is tried
    found = _first_balanced_object(text)
    if found is not None:
        repaired = loads(_escape_explanation_quotes(found))
        if repaired is BEYOND:
            return None
        if type(repaired) is dict:
            return _verdict_of(repaired)
    salvaged = _first_criteria_met(text)
    return UNREAD if salvaged is None else salvaged


def _verdict_of(fields: dict[str, Any]) -> bool | str:
    met = fields.get("criteria_met")
    return met if type(met) is bool else UNREAD  # missing or not a boolean: unread


def _first_balanced_object(text: str) -> str | None:
    """RuscaRL's brace counter: from the ``{`` seen at depth 0 to the ``}`` that brings the depth
    back to 0, every brace counted (inside strings too; a stray ``}`` first makes the depth negative)."""
    depth = 0
    start = -1
    for at, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                start = at
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and start != -1:
                return text[start:at + 1]
    return None


def _escape_explanation_quotes(text: str) -> str:
    """RuscaRL's fix_quotes_in_json: the double quotes inside each explanation value escaped (its
    end is the first quote followed by whitespace and "," or "}"); once one finds no end, no later can."""
    out: list[str] = []
    copied = 0
    search = 0
    while True:
        key = text.find(_KEY, search)
        if key < 0:
            break
        at = skip_space(text, key + len(_KEY))
        if text[at:at + 1] != ":":
            search = key + 1
            continue
        at = skip_space(text, at + 1)
        if text[at:at + 1] != '"':
            search = key + 1
            continue
        content_start = at + 1
        end = -1
        quote = text.find('"', content_start)
        while quote >= 0:
            after = skip_space(text, quote + 1)
            if text[after:after + 1] in (",", "}"):
                end = quote
                break
            quote = text.find('"', quote + 1)
        if end < 0:
            break
        content = text[content_start:end].replace('\\"', _ESCAPED_QUOTE).replace('"', '\\"').replace(_ESCAPED_QUOTE, '\\"')
        out.append(text[copied:content_start])
        out.append(content)
        copied = end
        search = end + 1
    out.append(text[copied:])
    return "".join(out)


def _first_criteria_met(text: str) -> bool | None:
    """re.search(r'"criteria_met"\\s*:\\s*(true|false)'): the first such verdict anywhere, or None."""
    start = 0
    while True:
        key = text.find(_MET, start)
        if key < 0:
            return None
        at = skip_space(text, key + len(_MET))
        if text[at:at + 1] == ":":
            at = skip_space(text, at + 1)
            if text.startswith("true", at):
                return True
            if text.startswith("false", at):
                return False
        start = key + 1
