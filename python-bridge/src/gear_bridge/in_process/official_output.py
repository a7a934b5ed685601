"""The official GEAR batch judge's output (host ``gear``) read in-process where the reading is certain.

adapters/official-gear/judge-parse.ts reads one output per response, for every judged criterion:
reasoning stripped, JSON candidates tried in the host's order, item keys "1", "01", "r1", "item 1"
alike, a regex fallback, then ``criteria_met`` and ``prob_met`` clamped to [0, 1] and flipped when
they contradict each other. Here only the output the official prompt asks for is read, the one no
step after the first can read differently: plain ASCII JSON (no ``\\u`` escapes, no reasoning tags)
whose object has exactly the keys "1".."n", each an object of plain values with a boolean
``criteria_met`` and a number ``prob_met`` in [0, 1] that agrees with it (>= 0.5 when met, <= 0.5
when not). Its judgments all read "ok", so no failure policy applies. Anything else (clamping,
flipping, a missing or repeated key, text around the JSON) is left to the service: None.
"""

from __future__ import annotations

import json
import re
from typing import Any, Sequence

__all__ = ["read_batch_output", "is_rule_verified"]

_THINK = re.compile(r"<(/?)think>", re.IGNORECASE)  # a superset of the tags the service strips
_PLAIN = (str, bool, int, float, type(None))


class _Repeated(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Repeated("a repeated key")  # the service reads the last one, and notes it
    return out


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is no JSON number")


def read_batch_output(raw: str, count: int) -> tuple[list[float], list[bool]] | None:
    """The probabilities and verdicts of ``count`` judged criteria, or None when the service must read the output."""
    if not raw.isascii() or "\\u" in raw or _THINK.search(raw):
        return None
    try:
        value = json.loads(raw, object_pairs_hook=_pairs, parse_constant=_constant)
    except (ValueError, RecursionError):
        return None
    if type(value) is not dict or len(value) != count:
        return None
    p: list[float] = []
    met: list[bool] = []
    for k in range(1, count + 1):
        item = value.get(str(k))
        if type(item) is not dict or not all(type(field) in _PLAIN for field in item.values()):
            return None
        verdict = item.get("criteria_met")
        prob: Any = item.get("prob_met")
        if type(verdict) is not bool or type(prob) not in (int, float):
            return None
        if not 0 <= prob <= 1 or (prob < 0.5 if verdict else prob > 0.5):
            return None  # clamped or flipped by the service
        p.append(prob)
        met.append(verdict)
    return p, met


def is_rule_verified(items: Sequence[Any]) -> bool:
    """Whether any rubric item may be one the official code checks with a rule (``tags.verifier``):
    those are not judged, so the output covers fewer criteria; any mention of ``verifier`` counts."""
    for item in items:
        tags = item.get("tags") if type(item) is dict else None
        if type(tags) is dict and "verifier" in tags:
            return True
        if type(tags) is list and any(type(tag) is str and tag.startswith("verifier") for tag in tags):
            return True
    return False
