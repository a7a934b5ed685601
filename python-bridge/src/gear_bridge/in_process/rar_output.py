"""RaR-Explicit judge outputs (host ``rar-explicit``) read in-process as the service reads them.

adapters/rar-explicit/judge-parse.ts reads one output per criterion: reasoning stripped
(``strip_reasoning``), then the first JSON object found (adapters/judge-output/extract-json-object.ts:
the whole text, stripped, when it is JSON at all, an object or not; else the body of each ```
fence, then the first ``{...}`` balanced outside strings, the first that is an object), then its
``satisfied``: a boolean is the verdict; a missing, repeated or non-boolean one, or no object at
all, is unread and counts against the response. Here every step is the service's, in its order,
with Python's own ``json.loads`` (which the service reproduces) and whitespace; left to the service
(None) is only what the two JSON readers read differently (``json_reads_alike``).
"""

from __future__ import annotations

import re
from typing import Any

from .json_candidates import fenced_blocks, first_balanced_object
from .json_reading import BEYOND, NOT_JSON, UNREAD, first_reading, loads

__all__ = ["read_satisfied"]

_WS = "[ \t\n\r]*"
_CLEAN = re.compile(rf"{_WS}(?:```json{_WS})?\{{{_WS}\"satisfied\"{_WS}:{_WS}(true|false){_WS}\}}{_WS}(?:```)?{_WS}")


def read_satisfied(raw: str | None) -> bool | str | None:
    """True / False (satisfied or not), :data:`UNREAD`, or None when the service must read it."""
    answer, text = first_reading(raw, _CLEAN)
    if text is None:
        return answer
    text = text.strip()
    # Whether the object json.loads built last named "satisfied" twice: the top-level one, when the
    # value is an object (Python's decoder completes the outermost object last).
    repeated = [False]

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        repeated[0] = sum(1 for key, _ in pairs if key == "satisfied") > 1
        return dict(pairs)

    whole = loads(text, pairs_hook)
    if whole is BEYOND:
        return None
    if whole is not NOT_JSON:
        return _verdict(whole, repeated[0]) if type(whole) is dict else UNREAD  # JSON of another shape: not searched inside
    balanced = first_balanced_object(text)
    for candidate in [*fenced_blocks(text), *([] if balanced is None else [balanced])]:
        value = loads(candidate, pairs_hook)
        if value is BEYOND:
            return None
        if type(value) is dict:
            return _verdict(value, repeated[0])
    return UNREAD


def _verdict(fields: dict[str, Any], repeated: bool) -> bool | str:
    satisfied = fields.get("satisfied")
    return satisfied if type(satisfied) is bool and not repeated else UNREAD  # repeated, missing or not a boolean: unread
