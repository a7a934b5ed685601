"""RaR-Explicit judge outputs (host ``rar-explicit``) read in-process where the reading is certain.

adapters/rar-explicit/judge-parse.ts reads one output per criterion: reasoning stripped, then the
first JSON object found (adapters/judge-output/extract-json-object.ts: the whole text, else the
body of a ``` fence, else the first balanced ``{...}``, each read as Python's ``json.loads``
reads it), then its ``satisfied`` field: a boolean is the verdict; a missing, repeated or
non-boolean one, or no object at all, is unread and counts against the response. Here, after
stripping reasoning as the service does (``strip_reasoning``), only the outputs whose first
candidate is certain are read:

- the usual verdict ``{"satisfied": true|false}``, perhaps in a ```json fence, with JSON
  whitespace around (one regular expression);
- one flat JSON object of strings, booleans and nulls, the whole text or the body of one closed
  ```json fence, ASCII escapes only, naming ``satisfied`` at most once;
- an output with no ``{`` at all: no candidate holds an object, so it is unread.

Everything else (tags the stripping brings together, text around the JSON, a ``satisfied`` named
twice, numbers, nesting, ``\\u`` escapes, whitespace that only Python's ``str.strip`` removes) is
left to the service's reader: :func:`read_satisfied` says None.
"""

from __future__ import annotations

import re

from .json_reading import JSON_WS, READ_ON, UNREAD, early_verdict, flat_object, strip_reasoning

__all__ = ["read_satisfied"]

_WS = "[ \t\n\r]*"
_CLEAN = re.compile(rf"{_WS}(?:```json{_WS})?\{{{_WS}\"satisfied\"{_WS}:{_WS}(true|false){_WS}\}}{_WS}(?:```)?{_WS}")
_FENCE = "```"


def read_satisfied(raw: str | None) -> bool | str | None:
    """True / False (satisfied or not), :data:`UNREAD`, or None when the service must read it."""
    if raw is not None:
        raw = strip_reasoning(raw)  # as the service does, before reading
    early = early_verdict(raw, _CLEAN, None)  # without a brace no candidate holds an object: unread
    if early is not READ_ON:
        return early  # type: ignore[no-any-return]
    assert raw is not None
    text = raw.strip(JSON_WS)
    if text != raw.strip():
        return None
    if text.startswith(_FENCE + "json"):
        # Not JSON as a whole, so the service reads the first fence's body: this one's, when it
        # closes at the end and holds no other fence.
        body = text[7:-3]
        if not text.endswith(_FENCE) or _FENCE in body or body.strip(JSON_WS) != body.strip():
            return None
        text = body.strip(JSON_WS)
    elif _FENCE in text:
        return None
    value = flat_object(text)
    if value is None:
        return None
    if text.count('"satisfied"') > 1:
        return None  # perhaps a repeated key, which the service reports
    verdict = value.get("satisfied")
    return verdict if type(verdict) is bool else UNREAD
