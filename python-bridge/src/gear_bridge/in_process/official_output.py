"""The official GEAR batch judge's output (host ``gear``) read in-process where the reading is certain.

adapters/official-gear/judge-parse.ts reads one output per response, for every judged criterion:
reasoning stripped, JSON candidates tried in the host's order, item keys "1", "01", "r1", "item 1"
alike, a regex fallback, then ``criteria_met`` and ``prob_met`` clamped to [0, 1] and flipped when
they contradict each other. Here only the output the official prompt asks for is read, the one no
step after the first can read differently: plain ASCII JSON (no ``\\u`` escapes, no reasoning tags)
whose object has exactly the keys "1".."n", each an object of plain values with a boolean
``criteria_met`` and a number ``prob_met`` in [0, 1] that agrees with it (>= 0.5 when met, <= 0.5
when not). Its judgments all read "ok", so no failure policy applies. Anything else (clamping,
flipping, a missing key, text around the JSON, nesting) is left to the service: None.
"""

from __future__ import annotations

from typing import Any

from .json_reading import keyed_items

__all__ = ["read_batch_output"]


def read_batch_output(raw: str, count: int) -> tuple[list[float], list[bool]] | None:
    """The probabilities and verdicts of ``count`` judged criteria, or None when the service must read the output."""
    items = keyed_items(raw, count)
    if items is None:
        return None
    p: list[float] = []
    met: list[bool] = []
    for item in items:
        verdict = item.get("criteria_met")
        prob: Any = item.get("prob_met")
        if type(verdict) is not bool or (type(prob) is not float and type(prob) is not int):
            return None
        if not 0 <= prob <= 1 or (prob < 0.5 if verdict else prob > 0.5):
            return None  # clamped or flipped by the service
        p.append(prob)
        met.append(verdict)
    return p, met
