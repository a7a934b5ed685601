"""HealthBench-grader outputs (RuscaRL, MeRF) read in-process where the reading is certain.

adapters/ruscarl/judge-parse.ts reads an output with reasoning stripped, then as JSON (Python's
``json.loads``, reproduced in TypeScript), then by RuscaRL's repairs. Here only two kinds of
output are read, the ones whose reading no step after the first can change:

- a clean verdict: an object ``{"explanation": "...", "criteria_met": true|false}``, perhaps in a
  ```json fence, with JSON whitespace around (the usual output; matched by one regular
  expression), or any flat JSON object of strings, booleans and nulls, read by ``json.loads``;
- an output that cannot hold a verdict: no ``{`` and no ``"criteria_met"`` anywhere, so neither
  the JSON reading nor a repair finds one; it is unread, and counts against the response.

Everything else (reasoning tags, text around the JSON, truncated JSON, escapes ``\\u``, non-ASCII
whitespace at the ends, numbers) is left to the service's reader: :func:`read_verdict` says None.
"""

from __future__ import annotations

import json
import re
from typing import Final

__all__ = ["UNREAD", "read_verdict"]

#: An output that holds no verdict the host could read.
UNREAD: Final = "unread"

_WS = "[ \t\n\r]*"
_CLEAN = re.compile(
    rf'{_WS}(?:```json{_WS})?\{{{_WS}"explanation"{_WS}:{_WS}"[^"\\<\x00-\x1f]*"{_WS},{_WS}"criteria_met"{_WS}:{_WS}(true|false){_WS}\}}{_WS}(?:```)?{_WS}'
)
# Reasoning tags in any case (a superset of what the service strips: it declines more, never less).
_THINK = re.compile(r"<(/?)think>", re.IGNORECASE)
_JSON_WS = " \t\n\r"


def read_verdict(raw: str | None) -> bool | str | None:
    """True / False (criteria met or not), :data:`UNREAD`, or None when the service must read it."""
    if raw is None:
        return UNREAD  # no output for this criterion
    clean = _CLEAN.fullmatch(raw)
    if clean is not None:
        return clean.group(1) == "true"
    if "<" in raw and _THINK.search(raw) is not None:
        return None
    if "{" not in raw:
        return UNREAD if '"criteria_met"' not in raw else None
    text = raw.strip()
    if raw.strip(_JSON_WS) != text:
        return None  # other whitespace at an end: the service's str.strip() decides
    if text.startswith("```json"):
        rest = text[7:]
        text = rest.lstrip(_JSON_WS)
        if text != rest.lstrip():
            return None
    if text.endswith("```"):
        body = text[:-3]
        text = body.rstrip(_JSON_WS)
        if text != body.rstrip():
            return None
    if "\\u" in text:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if type(value) is not dict:
        return None
    for item in value.values():
        if item is not None and type(item) is not str and type(item) is not bool:
            return None
    met = value.get("criteria_met")
    return met if type(met) is bool else UNREAD
