"""HealthBench-grader outputs (RuscaRL, MeRF) read in-process where the reading is certain.

adapters/ruscarl/judge-parse.ts reads an output with reasoning stripped, then as JSON (Python's
``json.loads``, reproduced in TypeScript), then by RuscaRL's repairs. Here only two kinds of
output are read, after stripping reasoning as the service does (``strip_reasoning``), the ones
whose reading no step after the first can change:

- a clean verdict: an object ``{"explanation": "...", "criteria_met": true|false}``, perhaps in a
  ```json fence, with JSON whitespace around (the usual output; matched by one regular
  expression), or any flat JSON object of strings, booleans and nulls, read by ``json.loads``;
- an output that cannot hold a verdict: no ``{`` and no ``"criteria_met"`` anywhere, so neither
  the JSON reading nor a repair finds one; it is unread, and counts against the response.

Everything else (tags the stripping brings together, text around the JSON, truncated JSON,
escapes ``\\u``, non-ASCII whitespace at the ends, numbers) is left to the service's reader:
:func:`read_verdict` says None.
"""

from __future__ import annotations

import re

from .json_reading import JSON_WS, READ_ON, UNREAD, early_verdict, flat_object, strip_reasoning

__all__ = ["UNREAD", "read_verdict"]

_WS = "[ \t\n\r]*"
_CLEAN = re.compile(
    rf'{_WS}(?:```json{_WS})?\{{{_WS}"explanation"{_WS}:{_WS}"[^"\\<\x00-\x1f]*"{_WS},{_WS}"criteria_met"{_WS}:{_WS}(true|false){_WS}\}}{_WS}(?:```)?{_WS}'
)


def read_verdict(raw: str | None) -> bool | str | None:
    """True / False (criteria met or not), :data:`UNREAD`, or None when the service must read it."""
    if raw is not None:
        raw = strip_reasoning(raw)  # as the service does, before reading
    early = early_verdict(raw, _CLEAN, '"criteria_met"')  # a repair may read it without braces
    if early is not READ_ON:
        return early  # type: ignore[no-any-return]
    assert raw is not None
    text = raw.strip()
    if raw.strip(JSON_WS) != text:
        return None  # other whitespace at an end: the service's str.strip() decides
    if text.startswith("```json"):
        rest = text[7:]
        text = rest.lstrip(JSON_WS)
        if text != rest.lstrip():
            return None
    if text.endswith("```"):
        body = text[:-3]
        text = body.rstrip(JSON_WS)
        if text != body.rstrip():
            return None
    value = flat_object(text)
    if value is None:
        return None
    met = value.get("criteria_met")
    return met if type(met) is bool else UNREAD
