"""Rewards of judged responses computed in the worker process, where they equal the service's.

:class:`InProcessScorer` scores a response whose judgments are at hand (judge scores of a
canonical or official-gear row, or RuscaRL / MeRF grader outputs) under the flat, hard or gear
aggregator, with the same floats as the service (the differential tests in
python-bridge/tests/in_process check that against a real ``gear serve``). It answers None
whenever it cannot be sure of that (see options.py, rubric_rows.py, layout.py,
grader_output.py): the response then goes to the service, which scores it or names what is wrong.
"""

from __future__ import annotations

import threading
from typing import Any, Sequence

from ..rows import GearRow, JudgeScores, Judgment
from ..settings import Settings
from .aggregate import gear_scores, hard_scores, method_scores, reward
from .fcp import FcpCounter
from .grader_output import UNREAD, read_verdict
from .layout import Layout, compile_layout
from .options import LocalOptions, host_options, resolve_options
from .rubric_rows import RubricParts, read_canonical, read_official, read_ruscarl

__all__ = ["InProcessScorer", "in_process_scorer", "IN_PROCESS_METHODS"]

#: The aggregators scored in-process (gear-exact and auto run in the service).
IN_PROCESS_METHODS = ("flat", "hard", "gear")
#: Hosts whose judge outputs are read in-process.
_GRADER_HOSTS = ("ruscarl", "merf")
_READERS = {"canonical": read_canonical, "official-gear": read_official}
_MAX_LAYOUTS = 8192
_DECLINED = object()


class InProcessScorer:
    """Scores judged responses under one :class:`Settings` in this process, where it can.

    Args:
        settings: the aggregator, options, host and metrics setting.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        options = resolve_options(settings.options) if settings.aggregator in IN_PROCESS_METHODS else None
        self._options: LocalOptions | None = options
        self._host_options = host_options(options) if options is not None else None
        self._layouts: dict[str, Any] = {}
        self._lock = threading.Lock()
        #: How many responses were scored here, and how many were left to the service.
        self.scored = 0
        self.declined = 0

    @property
    def active(self) -> bool:
        """Whether any response can be scored here under these settings."""
        return self._options is not None

    def _layout(self, row: GearRow) -> tuple[Layout, tuple[float, ...]] | None:
        """The row's layout (and weights), compiled once per row."""
        found = self._layouts.get(row.key)
        if found is None:
            found = self._compile(row)
            with self._lock:
                if len(self._layouts) >= _MAX_LAYOUTS:
                    self._layouts.clear()
                self._layouts[row.key] = found
        return None if found is _DECLINED else found

    def _compile(self, row: GearRow) -> Any:
        parts: RubricParts | None
        options = self._options
        if row.is_host:
            host = self.settings.host or row.format
            parts = read_ruscarl(row.content) if host in _GRADER_HOSTS else None
            options = self._host_options
        else:
            parts = _READERS[row.format](row.content)
        if parts is None or options is None:
            return _DECLINED
        layout = compile_layout(parts, options)
        return _DECLINED if layout is None else (layout, parts.weights)

    def fields(self, row: GearRow, judgment: Judgment | None, fcp: FcpCounter | None = None) -> dict[str, float | int] | None:
        """verl's fields for one response (``REWARD_KEYS`` and, with metrics, ``METRIC_KEYS``), or
        None when the service must score it. ``fcp`` counts the response when it is a rubric row's.
        """
        if self._options is None or judgment is None:
            return None
        compiled = self._layout(row)
        if compiled is None:
            self.declined += 1
            return None
        layout, weights = compiled
        if row.is_host:
            out = self._host_fields(layout, weights, judgment)
        else:
            out = self._rubric_fields(layout, judgment, fcp)
        if out is None:
            self.declined += 1
        else:
            self.scored += 1
        return out

    def _rubric_fields(self, layout: Layout, judgment: Judgment, fcp: FcpCounter | None) -> dict[str, float | int] | None:
        if not isinstance(judgment, JudgeScores) or len(judgment.p) != layout.size:
            return None  # the service names the miscount
        # p holds floats and the ints 0 and 1 (JSON): Python's arithmetic on them is core's on doubles.
        p = judgment.p
        d = judgment.d
        aggregator = self.settings.aggregator
        q = method_scores(layout, aggregator, p, d)
        score = reward(layout, q)
        flat = score if aggregator == "flat" else reward(layout, p)
        out = _fields(score, flat, layout.size, 0)
        known: dict[str, Sequence[float]] = {aggregator: q}
        if self.settings.metrics:
            gear = q if aggregator == "gear" else gear_scores(layout, p)
            hard = q if aggregator == "hard" else hard_scores(layout, p, d)
            known["gear"] = gear
            known["hard"] = hard
            out["gear_reward"] = score if aggregator == "gear" else reward(layout, gear)
            out["flat_reward"] = flat
            out["hard_reward"] = score if aggregator == "hard" else reward(layout, hard)
        if fcp is not None:
            fcp.add(layout, p, d, known)
        return out

    def _host_fields(self, layout: Layout, weights: tuple[float, ...], judgment: Judgment) -> dict[str, float | int] | None:
        if isinstance(judgment, JudgeScores):
            return None
        p: list[float] = []
        met: list[bool] = []
        unread = 0
        outputs = judgment
        for index, weight in enumerate(weights):
            verdict = read_verdict(outputs[index] if index < len(outputs) else None)
            if verdict is None:
                return None
            if verdict is UNREAD:
                # Never credit: an unread penalty counts as applied, an unread criterion as not met.
                unread += 1
                verdict = weight < 0
            p.append(1.0 if verdict else 0.0)
            met.append(bool(verdict))
        aggregator = self.settings.aggregator
        q = method_scores(layout, aggregator, p, met)
        score = reward(layout, q)
        out = _fields(score, _ruscarl_reward(weights, met), layout.size, unread)
        if self.settings.metrics:
            out["gear_reward"] = score if aggregator == "gear" else reward(layout, gear_scores(layout, p))
            out["flat_reward"] = score if aggregator == "flat" else reward(layout, p)
            out["hard_reward"] = score if aggregator == "hard" else reward(layout, hard_scores(layout, p, met))
        return out


def _fields(score: float, native: float, criteria: int, unread: int) -> dict[str, float | int]:
    """verl's fields, keys in the order of the service path's (verl builds its arrays from the first result)."""
    return {
        "score": score,
        "native_score": native,
        "num_criteria": criteria,
        "unread_judgments": unread,
        "judged": 0,
        "judge_failed_criteria": 0,
        "judge_requests": 0,
        "judge_cache_hits": 0,
        "judge_latency_ms": 0.0,
    }


def _ruscarl_reward(weights: Sequence[float], met: Sequence[bool]) -> float:
    """RuscaRL's calculate_score, added left to right (adapters/ruscarl/native-reward.ts)."""
    possible = 0.0
    for w in weights:
        if w > 0:
            possible += w
    if possible == 0:
        return 0.0
    achieved = 0.0
    for w, m in zip(weights, met):
        if m:
            achieved += w
    return achieved / possible + 0.0


_scorers: dict[int, tuple[Settings, InProcessScorer]] = {}
_scorers_lock = threading.Lock()


def in_process_scorer(settings: Settings) -> InProcessScorer:
    """The process's in-process scorer for ``settings`` (one per settings object)."""
    found = _scorers.get(id(settings))
    if found is not None and found[0] is settings:
        return found[1]
    with _scorers_lock:
        if len(_scorers) > 256:
            _scorers.clear()
        scorer = InProcessScorer(settings)
        _scorers[id(settings)] = (settings, scorer)
        return scorer
