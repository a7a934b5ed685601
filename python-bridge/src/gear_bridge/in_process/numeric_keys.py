"""How the official parsers find item k's judgment in a judge's JSON, as the service does
(adapters/judge-output/numeric-keys.ts: ``_parse_numeric_key``, ``_find_numeric_key_dict``,
``_top_level_list_payload``)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["numeric_key", "numeric_key_dict", "top_level_list"]


_PREFIXES = ("", "r", "rubric", "item", "criterion")
# The service's SEPARATOR: "_", "-" and Python's whitespace.
_SEPARATOR = re.compile("[_\\-\t\n\x0b\x0c\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*")
_DIGITS = re.compile(r"[0-9]+")


def numeric_key(key: str, count: int) -> int | None:
    """_parse_numeric_key: "3", "03", "r3", "R_3", "item 3", "criterion-3" name item 3 when
    1 <= 3 <= count; ASCII digits only, as in the service. Keys outside ASCII are read alike:
    Python's strip() is the service's pyStrip, and lower() may differ from toLowerCase() only on
    characters no key naming an item holds. Such a key is a prefix's ASCII letters, separators
    (whitespace, which has no case) and digits, and the only characters outside ASCII that lower
    into it are "\u0130" (to "i" and a combining dot) and the Kelvin sign (to "k", in no prefix).
    (The service lowers only where that keeps the length; for the same reason this decides nothing.)"""
    text = key.strip()
    lower = text.lower()
    for prefix in _PREFIXES:
        if not lower.startswith(prefix):
            continue
        rest = text[len(prefix):]
        digits = rest[_SEPARATOR.match(rest).end():]  # type: ignore[union-attr]  # matches everywhere
        if _DIGITS.fullmatch(digits) is None:
            continue
        if len(digits) > 15:
            return None
        value = int(digits)
        return value if 1 <= value <= count else None
    return None


def numeric_key_dict(payload: Any, count: int) -> dict[str, Any] | None:
    """_find_numeric_key_dict: the value itself when it is an object with a key naming an item;
    else the nested object (depth first, values in order) with the most such keys, the first on ties."""
    if type(payload) is not dict:
        return None
    score = _numeric_key_count(payload, count)
    if score > 0:
        return payload
    best: dict[str, Any] | None = None
    best_score = 0
    for child in payload.values():
        nested = numeric_key_dict(child, count)
        if nested is None:
            continue
        score = _numeric_key_count(nested, count)
        if score > best_score:
            best_score = score
            best = nested
    return best


def _numeric_key_count(payload: dict[str, Any], count: int) -> int:
    return sum(1 for key in payload if numeric_key(key, count) is not None)


def top_level_list(payload: Any, count: int) -> dict[str, Any] | None:
    """_top_level_list_payload: a non-empty list read as keys "1".."count" (extra elements dropped)."""
    if type(payload) is not list or not payload:
        return None
    return {str(k + 1): value for k, value in enumerate(payload[:count])}
