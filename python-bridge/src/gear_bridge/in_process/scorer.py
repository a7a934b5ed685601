"""Rewards of judged responses computed in the worker process, where they equal the service's.

:class:`InProcessScorer` scores a response whose judgments are at hand (judge scores of a
canonical or official-gear row, RuscaRL / MeRF grader outputs, RaR-Explicit verdicts, WritingBench
and PLawBench scored outputs, or the official GEAR batch judge's outputs of a ``gear`` host row) under every
aggregator (flat, hard, gear, gear-exact, auto), with the same floats as the service (the
differential tests in python-bridge/tests/in_process check that against a real ``gear serve``).
It answers None whenever it cannot be sure of that (see options.py, rubric_rows.py, layout.py and
the output readers): the response then goes to the service, which scores it or names what is wrong.
"""

from __future__ import annotations

import threading
from typing import Any, Sequence

from ..rows import GearRow, JudgeScores, Judgment, read_gear_text, usual_gear_text, usual_scores
from ..settings import HOSTS, Settings
from .aggregate import gear_scores, hard_scores, reward
from .canonical_text import read_canonical_text
from .exact import DECLINED, ExactPlan, exact_plan, exact_scores
from .fcp import FcpCounter
from .grader_output import UNREAD, read_verdict
from .layout import Layout, compile_layout
from .official_output import read_batch_output
from .options import LocalOptions, gear_host_options, host_options, resolve_options, zero_reward_options
from .rar_output import read_satisfied
from .rubric_rows import RubricParts, read_canonical, read_gear_row, read_official, read_rar, read_ruscarl, read_scored_row
from .scored_output import SCORED_CHUNK, read_scored, scored_items
from .scored_values import ScoredItem

__all__ = ["InProcessScorer", "in_process_scorer", "IN_PROCESS_METHODS"]

#: The aggregators scored in-process.
IN_PROCESS_METHODS = ("flat", "hard", "gear", "gear-exact", "auto")
_EXACT_METHODS = ("gear-exact", "auto")
#: Hosts whose judge outputs are read in-process: one HealthBench-grader output per criterion, one
#: RaR-Explicit verdict per criterion, the official GEAR judge's one output for every criterion, or
#: WritingBench's and PLawBench's scored outputs.
_GRADER_HOSTS = ("ruscarl", "merf")
_RAR_HOST = "rar-explicit"
_BATCH_HOST = "gear"
#: WritingBench and PLawBench: one scored output per request of up to 4 criteria.
_SCORED_HOSTS = ("writingbench", "plawbench")
_READERS = {"canonical": read_canonical, "official-gear": read_official}
_MAX_LAYOUTS = 8192
_DECLINED = object()
_STRINGS = frozenset((str,))


class InProcessScorer:
    """Scores judged responses under one :class:`Settings` in this process, where it can.

    Args:
        settings: the aggregator, options, host and metrics setting.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        options = resolve_options(settings.options) if settings.aggregator in IN_PROCESS_METHODS else None
        self._options: LocalOptions | None = options
        self._aggregator = settings.aggregator
        self._metrics = settings.metrics
        self._host_options = host_options(options) if options is not None else None
        self._gear_host_options = gear_host_options(options) if options is not None else None
        self._zero_reward_options = zero_reward_options(options) if options is not None else None
        self._layouts: dict[str, Any] = {}
        self._lock = threading.Lock()
        #: How many responses were scored here, and how many were left to the service.
        self.scored = 0
        self.declined = 0

    @property
    def active(self) -> bool:
        """Whether any response can be scored here under these settings."""
        return self._options is not None

    def _entry(self, row: GearRow) -> Any:
        """The row's (layout, is a host row), compiled once per row, or _DECLINED. A row is known by
        its text when it came as one (a str hashes once; the digest the server's registry needs is
        not computed)."""
        key = row.source if row.source is not None else row.key
        found = self._layouts.get(key)
        if found is None:
            found = self._remember(key, self._compile(row))
        return found

    def _remember(self, key: str, found: Any) -> Any:
        """Keeps a row's compiled entry under its key (the cache is emptied when full)."""
        with self._lock:
            if len(self._layouts) >= _MAX_LAYOUTS:
                self._layouts.clear()
            self._layouts[key] = found
        return found

    def _compile(self, row: GearRow) -> Any:
        return self._compile_content(row.format, row.content)

    def _compile_content(self, form: str, content: Any) -> Any:
        """The (layout, host or None, exact plan or None, a scored host's judged items or None, the
        judged positions of a host row with rule-verified items or None: all) of a row's format and
        content, or _DECLINED."""
        parts: RubricParts | None
        options = self._options
        scored = None
        judged = None
        host = (self.settings.host or form) if form in HOSTS else None
        if host in _GRADER_HOSTS:
            parts = read_ruscarl(content)
            options = self._host_options
        elif host == _BATCH_HOST:
            gear_row = read_gear_row(content)
            parts, judged = (None, None) if gear_row is None else gear_row
            options = self._gear_host_options
        elif host == _RAR_HOST:
            parts = read_rar(content)
            options = self._zero_reward_options
        elif host in _SCORED_HOSTS:
            scored_row = read_scored_row(content, host)
            # WritingBench normalizes as the official GEAR host does, PLawBench as RaR-Explicit.
            options = self._gear_host_options if host == "writingbench" else self._zero_reward_options
            parts = None
            if scored_row is not None:
                parts, scales, judged = scored_row
                scored = scored_items(parts.texts, parts.weights, scales, subitem_mode=host == "plawbench")
                if judged is not None:
                    scored = tuple([scored[k] for k in judged])  # the items the requests ask, in order
        elif host is not None:
            parts = None
        else:
            parts = _READERS[form](content)
        return self._compiled(parts, options, host, scored, judged)

    def _compiled(self, parts: RubricParts | None, options: LocalOptions | None, host: str | None,
                  scored: tuple[ScoredItem, ...] | None = None, judged: tuple[int, ...] | None = None) -> Any:
        """The entry of a row read to ``parts`` (None: not read here), or _DECLINED."""
        if parts is None or options is None:
            return _DECLINED
        layout = compile_layout(parts, options)
        if layout is None:
            return _DECLINED
        plan = exact_plan(layout, parts, options, self._aggregator) if self._aggregator in _EXACT_METHODS else None
        return _DECLINED if plan is DECLINED else (layout, host, plan, scored, judged)

    def _entry_of_text(self, spec: str) -> Any:
        """:meth:`_entry` of a row that came as the JSON text ``spec``, read straight to its parts
        (a canonical row msgspec reads) or content where it has the usual shape; None where the
        caller's reading must name a field."""
        parts = read_canonical_text(spec)
        if parts is not None:
            return self._remember(spec, self._compiled(parts, self._options, None, None))
        return self._entry_of_parsed_text(spec)

    def _entry_of_parsed_text(self, spec: str) -> Any:
        """:meth:`_entry_of_text` of a row read_canonical_text leaves: parsed to Python objects, then
        read (every row, before msgspec read canonical ones)."""
        usual = usual_gear_text(spec)
        if usual is None:
            try:
                return self._entry(read_gear_text(spec))
            except (ValueError, RecursionError):
                return None
        return self._remember(spec, self._compile_content(*usual))

    def fields(self, row: GearRow, judgment: Judgment | None, fcp: FcpCounter | None = None) -> dict[str, float | int] | None:
        """verl's fields for one response (``REWARD_KEYS`` and, with metrics, ``METRIC_KEYS``), or
        None when the service must score it. ``fcp`` counts the response when it is a rubric row's.
        """
        if self._options is None or judgment is None:
            return None
        entry = self._entry(row)
        if entry is _DECLINED:
            self.declined += 1
            return None
        layout, host, plan, scored, judged = entry
        if host:
            out = None if isinstance(judgment, JudgeScores) else self._host_fields(layout, plan, host, judgment, scored, judged)
        elif isinstance(judgment, JudgeScores) and len(judgment.p) == layout.size:
            out = self._aggregated(layout, plan, judgment.p, judgment.d, fcp)
        else:
            out = None  # the service names the miscount
        if out is None:
            self.declined += 1
        else:
            self.scored += 1
        return out

    def fields_of_text_row(self, spec: str, judgments: Any, fcp: FcpCounter | None = None) -> dict[str, float | int] | None:
        """:meth:`fields` for a row that came as the JSON text ``spec``, from the raw judgments as
        verl's row holds them, when they are in their usual form (judge scores as a dict of plain
        numbers in [0, 1] and booleans, grader outputs as a list of strings): the call verl makes 8
        times a prompt, in one step, without reading them into a :class:`Judgment` (the row is
        compiled at its first call and found by its text after). None otherwise: the caller then
        reads them (naming what is malformed) and calls :meth:`fields`. ``fcp`` counts the
        response when it is a rubric row's.
        """
        entry = self._layouts.get(spec)  # rows that came as text are known by it (see _entry)
        if entry is None:
            if self._options is None:
                return None
            entry = self._entry_of_text(spec)
            if entry is None:
                return None  # the caller's reading names the field
        if entry is _DECLINED:
            return None
        layout, host, plan, scored, judged = entry
        if host:
            out = (self._host_fields(layout, plan, host, judgments, scored, judged) if type(judgments) is list and _STRINGS.issuperset(map(type, judgments))
                   else None)
        else:
            usual = usual_scores(judgments)
            out = self._aggregated(layout, plan, usual[0], usual[1], fcp) if usual is not None and len(usual[0]) == layout.size else None
        if out is not None:
            self.scored += 1
        return out

    def _host_fields(self, layout: Layout, plan: ExactPlan | None, host: str, judgment: Sequence[str],
                     scored: tuple[ScoredItem, ...] | None, judged: tuple[int, ...] | None) -> dict[str, float | int] | None:
        weights = layout.weights
        if host == _BATCH_HOST:
            if len(judgment) != 1:
                return None
            if judged is None:
                read = read_batch_output(judgment[0], layout.size, weights)
            else:
                asked = read_batch_output(judgment[0], len(judged), [weights[k] for k in judged])
                read = None if asked is None else _with_unjudged(asked, judged, weights)
            if read is None:
                return None
            return self._aggregated(layout, plan, read[0], read[1], None, _official_flat_reward(weights, read[0]), read[2])
        if scored is not None:
            return self._scored_fields(layout, plan, judgment, scored, judged)
        rar = host == _RAR_HOST
        read_one = read_satisfied if rar else read_verdict
        p: list[float] = []
        met: list[bool] = []
        unread = 0
        outputs = judgment
        count = len(outputs)
        for index, weight in enumerate(weights):
            verdict = read_one(outputs[index] if index < count else None)
            if verdict is None:
                return None
            if verdict is UNREAD:
                # Never credit: an unread penalty counts as applied, an unread criterion as not met.
                unread += 1
                verdict = weight < 0
            p.append(1.0 if verdict else 0.0)
            met.append(bool(verdict))
        # RaR's eq. 1 (adapters/rar-explicit/native-reward.ts) over its positive category weights
        # is the official flat reward, term for term.
        native = _official_flat_reward(weights, p) if rar else _ruscarl_reward(weights, met)
        return self._aggregated(layout, plan, p, met, None, native, unread)

    def _scored_fields(self, layout: Layout, plan: ExactPlan | None, outputs: Sequence[str],
                       items: tuple[ScoredItem, ...], judged: tuple[int, ...] | None) -> dict[str, float | int] | None:
        """WritingBench or PLawBench: one output per request of up to 4 of the judged criteria
        (``items``; ``judged`` their positions, None: all), in rubric order, every one there; the
        native reward is each host's."""
        weights = layout.weights
        read = _scored_requests(outputs, items, weights if judged is None else [weights[k] for k in judged])
        if read is not None and judged is not None:
            read = _with_unjudged(read, judged, weights)
        if read is None:
            return None
        # WritingBench's native reward is the official flat one; PLawBench's standard one
        # (adapters/scored/native-reward.ts) is too, term for term, over the positive points
        # read_scored_row requires of it.
        return self._aggregated(layout, plan, read[0], read[1], None, _official_flat_reward(weights, read[0]), read[2])

    def _aggregated(self, layout: Layout, plan: ExactPlan | None, p: Sequence[float], d: Sequence[bool] | None,
                    fcp: FcpCounter | None, native: float | None = None, unread: int = 0) -> dict[str, float | int] | None:
        """verl's fields from p and the decisions d (None: p >= 0.5); ``native`` is the host's own
        reward (a rubric row's is the flat one). ``plan``: exact inference's, for gear-exact and
        auto where they eliminate (None where they take mean-field). None where the service must
        score the response."""
        # p holds floats and the ints 0 and 1 (JSON): Python's arithmetic on them is core's on doubles.
        # Effective scores equal to p (every gate open, every parent fully met: the usual case when
        # judges answer 0 or 1) have p's reward: the same terms, the same correctly rounded sum.
        aggregator = self._aggregator
        flat = reward(layout, p)
        # gear-exact and auto run mean-field where they take no exact plan (a forest or a multitree,
        # where it is exact; auto's choice past its cost): their scores are gear's.
        mean_field = aggregator == "gear" or plan is None and aggregator in _EXACT_METHODS
        gear_q: list[float] | None = None
        if aggregator == "flat":
            q: Sequence[float] = p
            score = flat
        else:
            if mean_field:
                q = gear_q = gear_scores(layout, p)
            elif aggregator == "hard":
                q = hard_scores(layout, p, d)
            else:
                assert plan is not None
                exact = exact_scores(plan, p)
                if exact is None:
                    return None
                q = exact
            score = flat if q == p else reward(layout, q)
        if fcp is not None:
            # A step's FCP of auto is gear's (it resolves per rubric; FCP takes one method).
            if fcp.aggregator != ("gear" if aggregator == "auto" else aggregator):
                raise ValueError(f"an FCP counter of {fcp.aggregator} given the scores of {aggregator}")
            if aggregator == "auto":
                if gear_q is None:
                    gear_q = gear_scores(layout, p)
                fcp.add(layout, p, gear_q)
            else:
                fcp.add(layout, p, q)
        if native is None:
            native = flat
        if not self._metrics:
            return _fields(score, native, layout.size, unread)
        if mean_field:
            gear = score
        else:
            if gear_q is None:
                gear_q = gear_scores(layout, p)
            gear = flat if gear_q == p else reward(layout, gear_q)
        if aggregator == "hard":
            hard = score
        else:
            hard_q = hard_scores(layout, p, d)
            hard = flat if hard_q == p else reward(layout, hard_q)
        return _fields(score, native, layout.size, unread, gear, flat, hard)

def _fields(score: float, native: float, criteria: int, unread: int, gear: float | None = None, flat: float | None = None,
            hard: float | None = None) -> dict[str, float | int]:
    """verl's fields, keys in the order of the service path's (verl builds its arrays from the first
    result); the metrics when given."""
    if gear is None or flat is None or hard is None:
        return {"score": score, "native_score": native, "num_criteria": criteria, "unread_judgments": unread, "judged": 0,
                "judge_failed_criteria": 0, "judge_requests": 0, "judge_cache_hits": 0, "judge_latency_ms": 0.0}
    return {"score": score, "native_score": native, "num_criteria": criteria, "unread_judgments": unread, "judged": 0,
            "judge_failed_criteria": 0, "judge_requests": 0, "judge_cache_hits": 0, "judge_latency_ms": 0.0,
            "gear_reward": gear, "flat_reward": flat, "hard_reward": hard}


def _scored_requests(outputs: Sequence[str], items: tuple[ScoredItem, ...], weights: Sequence[float]) -> tuple[list[float], list[bool], int] | None:
    """The readings of the judged ``items`` (``weights`` theirs) from one output per request of up
    to SCORED_CHUNK of them, in order; None where the outputs miscount or the service must read one."""
    size = len(items)
    if len(outputs) != -(-size // SCORED_CHUNK):
        return None
    p: list[float] = []
    met: list[bool] = []
    unread = 0
    for start, output in zip(range(0, size, SCORED_CHUNK), outputs):
        end = min(size, start + SCORED_CHUNK)
        read = read_scored(output, items[start:end], weights[start:end])
        if read is None:
            return None
        p += read[0]
        met += read[1]
        unread += read[2]
    return p, met, unread


def _with_unjudged(read: tuple[list[float], list[bool], int], judged: tuple[int, ...], weights: Sequence[float]) -> tuple[list[float], list[bool], int]:
    """A host row with rule-verified items: ``read`` answers the judged positions, in order; every
    other criterion is not judged (gear runs no rule function), so it counts against the response
    (an unjudged penalty is applied), and is counted, as the service's failure policy counts it."""
    p = [1.0 if w < 0 else 0.0 for w in weights]
    met = [w < 0 for w in weights]
    for at, k in enumerate(judged):
        p[k] = read[0][at]
        met[k] = read[1][at]
    return p, met, read[2] + len(weights) - len(judged)


def _official_flat_reward(weights: Sequence[float], p: Sequence[float]) -> float:
    """The official GEAR code's flat reward, added left to right (adapters/official-gear/native-reward.ts)."""
    denominator = 0.0
    for w in weights:
        denominator += max(w, 0.0)
    if not denominator > 0:
        denominator = 1.0
    numerator = 0.0
    for w, x in zip(weights, p):
        numerator += w * x
    return numerator / denominator + 0.0


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
