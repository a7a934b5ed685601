"""The hosts' regex fallbacks' ``"?(\\d+)"?\\s*:...`` patterns as the service scans them
(adapters/judge-output/item-scan.ts): the rest of a pattern is tried at the end of every run of
ASCII digits not inside an earlier match, which is where Python's finditer finds its matches (a
match of ``(\\d+)`` runs to its run's end, as what follows it is never a digit)."""

from __future__ import annotations

import re

__all__ = ["DIGIT_RUN", "keyed_matches"]

DIGIT_RUN = re.compile("[0-9]+")


def keyed_matches(text: str, rest: re.Pattern[str]) -> list[tuple[str, int, re.Match[str]]]:
    """Each (digits, where the match starts, the match of ``rest`` after the digits) of
    ``"?(\\d+)`` + ``rest`` in ``text``, in finditer order. A match starts at the quote before its
    digits when that quote is not inside the match before it."""
    found = []
    consumed = 0
    for run in DIGIT_RUN.finditer(text):
        start = run.start()
        if start < consumed:
            continue
        match = rest.match(text, run.end())
        if match is None:
            continue
        opened = start - 1 if start - 1 >= consumed and text[start - 1] == '"' else start
        consumed = match.end()
        found.append((run.group(), opened, match))
    return found
