"""WritingBench judge outputs (host ``writingbench``) read in-process where the reading is certain.

adapters/scored/judge-parse.ts reads one output per request of up to 4 criteria as the official
scored code does: reasoning stripped, JSON candidates in the host's order, item keys "1", "01",
"r1", "item 1" alike (found nested too), values coerced (a bare number is the score, a boolean or
a yes/no word a verdict, a numeric string its number), probability-like fields before the score,
and the score clamped to 1..10; p = score / 10, met = p >= 0.7. Here only the output its prompt
asks for is read, the one no step after the first can read differently: plain ASCII JSON (no
``\\u`` escapes, no reasoning tags) whose object has exactly the keys "1".."k", each an object with
a number ``score`` in [1, 10] and none of the fields read before it (``normalized_score``,
``prob_met``, ``probability``, ``prob``, ``p``, ``criteria_met``), nothing nested deeper. Its
judgments all read "ok", so no failure policy applies. Anything else goes to the service: None.
"""

from __future__ import annotations

from typing import Any

from .json_reading import keyed_items

__all__ = ["read_scored_output", "SCORED_CHUNK", "SCORED_THRESHOLD"]

#: Criteria per judge request (GEAR_MAX_RUBRICS_PER_JUDGE, adapters/scored/judge-prompt.ts).
SCORED_CHUNK = 4
#: score_met_threshold: met = p >= 0.7 (the official default).
SCORED_THRESHOLD = 0.7

#: Fields the host reads before ``score`` (a probability times the maximum, or a verdict).
_READ_BEFORE_SCORE = ("normalized_score", "prob_met", "probability", "prob", "p", "criteria_met")


def read_scored_output(raw: str, count: int) -> tuple[list[float], list[bool]] | None:
    """The probabilities and verdicts of the ``count`` criteria of one request, or None when the
    service must read the output."""
    items = keyed_items(raw, count) if 1 <= count <= SCORED_CHUNK else None
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
