"""Judgments that come with a VERL row, and the guard against reading another rollout's.

verl repeats a prompt's row for its ``n`` rollouts by reference: every rollout of a group gets the
same ``extra_info`` dict. Judgments in it are therefore per prompt, not per response, and verl's
reward-loop ``naive`` and ``rate_limited`` managers merge each rollout's ``tool_extra_fields`` into
that shared dict in place, so a call can read the judgments of another rollout of its group
(224 of 256 rewards came out wrong that way). :class:`SharedRowGuard` refuses judgments read from
a dict that was already seen with a different response.

It marks a plain dict it reads with :data:`READ_MARK`: ``(id of the dict, the response)``. The mark
lives exactly as long as the dict, costs one operation on a dict the call has just read (a map
of its own, on ~100 us of verl's work per response, cost verl's legacy naive step ~3%:
bench/python/verl_legacy_naive_parts.py), and a copy of a marked dict, whose id differs, is a new
row. Other mappings (subclasses too, which may not store what they are given) are remembered in
the guard's own maps instead.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Mapping

from ..exceptions import PathPart, RowError, format_path
from ..in_process import FcpCounter, InProcessScorer
from ..rows import GEAR_KEY, GearRow, Judgment, parse_judge_outputs, parse_scores
from ..settings import Settings

__all__ = ["READ_MARK", "row_judgments", "known_row_fields", "SharedRowGuard", "shared_row_guard"]

#: The key the guard adds to a plain ``extra_info`` dict it read judgments from: (id of the dict, response).
READ_MARK = "_gear_read_for"

#: The guard's maps: id of a mapping -> (the mapping, the response it was read for).
_Readings = dict[int, tuple[Mapping[str, Any], str | bytes]]


def row_judgments(extra_info: Mapping[str, Any], row: GearRow, settings: Settings, path: tuple[PathPart, ...]) -> Judgment | None:
    """The row's own judgments (``extra_info[judgments_key]``), or None for the judge to make them.

    ``judgments="auto"``: the row's when present, else None. ``"precomputed"``: the row's, required.
    ``"judge"``: always None.

    Raises:
        RowError: malformed judgments, or missing ones with ``judgments="precomputed"``.
    """
    if settings.judgments == "judge":
        return None
    key = settings.judgments_key
    if key not in extra_info:
        if settings.judgments == "precomputed":
            wanted = "the judge's raw outputs, one string per judge request" if row.is_host else 'judge scores {"p": [...], "d": [...]}'
            raise RowError((*path, key), f'missing: {wanted} for this response (judgments="precomputed")')
        return None
    # parse_judgment, dispatched here: verl reads one judgment per response.
    value = extra_info[key]
    return parse_judge_outputs(value, (*path, key)) if row.is_host else parse_scores(value, (*path, key))


def known_row_fields(
    known: InProcessScorer | None, judgments_key: str, response: Any, extra_info: Any, path: tuple[PathPart, ...],
    fcp: FcpCounter | None = None,
) -> dict[str, float | int] | None:
    """The usual response, scored in one step by ``known`` (the in-process scorer of rows carrying
    their judgments, None where there is none): its row came as JSON text and carries the
    response's judgments in their usual form (see InProcessScorer.fields_of_text_row), and the
    guard passes. None for every other response, which the general path reads (naming what is
    malformed) and scores. ``fcp`` counts it when it is a rubric row's."""
    if known is None or type(extra_info) is not dict or type(response) is not str:
        return None
    spec = extra_info.get(GEAR_KEY)
    judgments = extra_info.get(judgments_key)
    if type(spec) is not str or judgments is None:
        return None
    fields = known.fields_of_text_row(spec, judgments, fcp)
    if fields is not None:
        # The guard's usual case inline: the dict's first reading marks it (see SharedRowGuard.check).
        mark = (id(extra_info), response)
        if extra_info.setdefault(READ_MARK, mark) is not mark:
            _guard.check(extra_info, response, path, judgments_key)
    return fields


class SharedRowGuard:
    """Remembers which response each ``extra_info`` was read for, as long as anything else holds it
    (verl's batch, for the whole step, however large the step): a plain dict by its mark
    (:data:`READ_MARK`), any other mapping in the guard's maps, with some dead ones.

    The maps are two generations of maps from ids to (mapping, response): the current one takes new
    ones; when it holds ``size`` (or twice what the last turnover kept), the mappings of both
    generations still held elsewhere become the old generation and the rest are dropped. One held
    only here can never be passed again, so dropping it loses nothing. A fixed window (the 16,384
    most recent dicts, as before) missed a group whose rollouts lay further apart in a larger step
    (verl's balance_batch reorders a step), and kept a finished step's rows alive. It holds the
    mappings it remembers, so an id is not reused while remembered. Without reference counts (not
    CPython), the last generation is kept whole at each turnover: the window is then ``size``.

    A check takes no lock: a reading is recorded with one ``dict.setdefault`` (atomic: an int key
    runs no Python code), and one that raced a turnover is recorded again in the new map. A lock
    taken per call cost verl's legacy naive step ~2% (bench/python/verl_legacy_naive_parts.py);
    only turnovers and the rare rewrites of an entry (a refusal, a change of kind) take one. A
    reading is compared with the dict's first one, which a refused reading never replaces. While a
    turnover merges the current map into the old generation, that map is also ``_retiring``, so
    its readings are never out of sight: a check looks there before the old generation, and a
    turnover publishes the new old generation before it clears ``_retiring`` (without it, 1-4% of
    rounds of the 8-thread test passed two responses).
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._now: _Readings = {}
        self._old: _Readings = {}
        self._retiring: _Readings = _NONE
        self._turnover_at = size
        self._turnover = threading.Lock()

    def check(self, extra_info: Mapping[str, Any], response: str | bytes, path: tuple[PathPart, ...], key: str) -> None:
        """Raises if ``extra_info`` was read before for a different response.

        ``response`` is the response's text, or the bytes of its token ids (GearRewardManager, which
        does not decode responses it need not): equal for equal responses, either way.

        Raises:
            RowError: at ``path.key``, naming the cause and the configurations that work.
        """
        if type(extra_info) is not dict:
            self._check_remembered(extra_info, response, path, key)
            return
        at = id(extra_info)
        mark = (at, response)
        seen = extra_info.setdefault(READ_MARK, mark)  # atomic: the first reading's mark stays
        if seen is mark:
            return
        while type(seen) is not tuple or len(seen) != 2 or seen[0] != at or type(seen[1]) is not type(response):
            # Not this dict's reading of this kind: a mark copied with the dict (another id),
            # something else under the name, or token ids where this is text (one process may score
            # a row both ways, as the bench does). This reading replaces it, unless another
            # thread's did first: that one is then compared. (Rare: the turnovers' lock serves.)
            with self._turnover:
                now = extra_info.get(READ_MARK)
                if now is seen:
                    extra_info[READ_MARK] = mark
                    return
            seen = now
        if seen[1] is not response and seen[1] != response:
            raise _read_for_another(path, key)

    def _check_remembered(self, extra_info: Mapping[str, Any], response: str | bytes, path: tuple[PathPart, ...], key: str) -> None:
        """check() of a mapping that is not a plain dict: by the guard's own maps."""
        at = id(extra_info)
        entry = (extra_info, response)
        while True:
            now = self._now
            seen = now.setdefault(at, entry)
            if self._now is now:  # else a turnover replaced the map meanwhile: record it in the new one
                break
        if seen is entry:  # this generation's first reading of the dict
            # _retiring before _old: a turnover sets _old before it clears _retiring.
            earlier = self._retiring.get(at)
            if earlier is None or earlier is entry:
                earlier = self._old.get(at)
            if earlier is None or earlier[0] is not extra_info or type(earlier[1]) is not type(response):
                if len(now) >= self._turnover_at:
                    self._turn_over()
                return
            if earlier is not entry:
                # An older generation's reading stays the one compared with: this one, recorded
                # first here, would let a later reading of its response pass. (The turnovers'
                # lock orders the rare writes to an id's entry; a setdefault never replaces one.)
                with self._turnover:
                    if now.get(at) is entry:
                        now[at] = earlier
            seen = earlier
        elif type(seen[1]) is not type(response):
            # A text and token ids cannot be compared: the newer reading is remembered in place of the other.
            with self._turnover:
                now[at] = entry
            return
        if seen[1] != response:
            raise _read_for_another(path, key)

    def _turn_over(self) -> None:
        with self._turnover:
            current = self._now
            if len(current) < self._turnover_at:
                return  # another thread turned it over first
            self._retiring = current
            self._now = {}
            merged = _first_readings(self._old, current)
            if _ONLY_HERE is None:  # no reference counts (not CPython): the last generation is kept whole
                self._old = {at: merged[at] for at in current}
            else:
                self._old = {at: merged[at] for at, count in _refcounts(merged).items() if count > _ONLY_HERE}
            self._retiring = _NONE
            self._turnover_at = max(self.size, 2 * len(self._old))

    def remembered(self) -> int:
        """How many dicts the guard holds now (one read in both generations counts once)."""
        return len(self._now.keys() | self._old.keys())


def _read_for_another(path: tuple[PathPart, ...], key: str) -> RowError:
    return RowError(
        (*path, key),
        f"one extra_info dict carries judgments for responses of different text: verl shares a prompt's extra_info "
        f"between all its rollouts (and its naive / rate_limited reward managers merge tool_extra_fields into it in "
        f"place), so the judgments at {format_path((*path, key))} cannot be this response's. Let gear judge (judge_url, "
        "or verl's reward model), or use GearRewardManager, which reads per-rollout judgments from tool_extra_fields "
        "into a copy",
    )


def _first_readings(old: _Readings, current: _Readings) -> _Readings:
    """The old generation and the current one merged, where both read one mapping: the older
    reading, the one a later reading is compared with. The current one would put a refused reading
    in its place, or the reading of a check that recorded itself, then found only itself where a
    turnover had just merged it (then two of the thread test's 8 threads passed: in 3 of 18,000
    rounds with 3 processes on 2 cores; in none of 60,000 since). Only a reading of another kind
    (token ids where text was) replaces the older one, as in check()."""
    merged = dict(old)
    for at, entry in current.items():
        earlier = merged.get(at)
        if earlier is None or earlier[0] is not entry[0] or type(earlier[1]) is not type(entry[1]):
            merged[at] = entry
    return merged


#: No map retiring (read only, never written).
_NONE: _Readings = {}

_refcount = getattr(sys, "getrefcount", None)


def _refcounts(entries: dict[int, tuple[Any, Any]]) -> dict[int, int]:
    """Each entry's dict's reference count, as seen from here (see _ONLY_HERE)."""
    assert _refcount is not None
    return {at: _refcount(entry[0]) for at, entry in entries.items()}


#: The count _refcounts reports for a dict nothing but its entry holds: measured, not assumed (the
#: interpreter's own references while counting differ between Python versions).
_ONLY_HERE: int | None = None if _refcount is None else _refcounts({0: ({}, "")})[0]

_guard = SharedRowGuard()


def shared_row_guard() -> SharedRowGuard:
    """The process's guard."""
    return _guard
