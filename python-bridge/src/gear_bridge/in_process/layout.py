"""A rubric compiled for repeated in-process scoring, as core/compile/compile-rubric.ts compiles it.

Ids checked, the graph projected to a DAG in input order (self-loops, unknown ids, a second edge
for a pair and cycle-closing edges dropped), parents grouped by child in input order, retentions
resolved, a topological order of the criteria with parents, and the reward denominator.
Returns None where compiling would fail in the service (a repeated id, weights whose reward could
overflow, a dropped edge under ``onInvalidEdge: reject``): the service then names the field.
"""

from __future__ import annotations

import math
import sys
from typing import NamedTuple

from .options import LocalOptions
from .rubric_rows import RubricParts
from .v8_pow import v8_pow

__all__ = ["Layout", "compile_layout"]

_HALF_MAX = sys.float_info.max / 2


class Layout(NamedTuple):
    """What scoring reads (a named tuple: one is made per new rubric, many per step).

    Attributes:
        size: criteria.
        weights: per criterion (input order).
        denominator: the reward's; 0 means the reward is 0 (``emptyDenominator: zero-reward``).
        clip: whether rewards are clipped to [0, 1].
        rule: the multi-parent rule.
        steps: the criteria with parents in a topological order, each with its kept parent edges
            in input order as (parent position, retention): what the mean-field update visits (the
            others keep p; any topological order gives the same q).
        gates: the criteria with parents in rubric order, each with its parents' positions in input
            order (hard gating and FCP's cases, in core's order).
    """

    size: int
    weights: tuple[float, ...]
    denominator: float
    clip: bool
    rule: str
    steps: tuple[tuple[int, tuple[tuple[int, float], ...]], ...]
    gates: tuple[tuple[int, tuple[int, ...]], ...]


def _denominator(weights: tuple[float, ...], abs_sum: float, options: LocalOptions) -> float:
    """core's rewardDenominator (the zero terms core adds change no correctly rounded sum)."""
    total = math.fsum([w for w in weights if w > 0]) if options.normalize == "positive-sum" else abs_sum
    if total > 0:
        return total
    return 1.0 if options.empty_denominator == "divide-by-one" else 0.0


def compile_layout(parts: RubricParts, options: LocalOptions) -> Layout | None:
    """The layout of ``parts`` under ``options``, or None where the service's compile would refuse it."""
    ids = parts.ids
    size = len(ids)
    index_by_id = dict(zip(ids, range(size)))
    if len(index_by_id) != size:
        return None  # a repeated id
    weights = parts.weights
    try:
        abs_sum = math.fsum(map(abs, weights))
    except OverflowError:  # core's exact sum gives Infinity there, and refuses it
        return None
    if not math.isfinite(abs_sum):
        return None
    denominator = _denominator(weights, abs_sum, options)
    if denominator > 0 and not abs_sum / denominator <= _HALF_MAX:
        return None

    if not parts.edges:
        return Layout(size, weights, denominator, options.clip, options.multi_parent_rule, (), ())

    edges, dropped = _resolved_edges(parts, index_by_id, options)
    kept = _kept_in_one_pass(edges, size)
    if kept is None:  # the edges hold a cycle
        kept = _kept_in_order(edges, size)
        dropped = True
    by_child, order, repeated = kept
    if (dropped or repeated) and options.on_invalid_edge == "reject":
        return None
    gates = tuple([(child, tuple([parent for parent, _ in by_child[child]])) for child in sorted(by_child)])
    steps = tuple([(child, tuple(by_child[child])) for child in order])
    return Layout(size, weights, denominator, options.clip, options.multi_parent_rule, steps, gates)


def _retention(options: LocalOptions, relation: str, override: float | None) -> float:
    """core's effectiveRetention: 1 under gamma 0, else the edge's own, the shared one or the
    relation's, raised to gamma as core raises it (see :func:`_raised`)."""
    if options.gamma == 0:
        return 1.0
    if override is not None:
        return _raised(override, options.gamma)
    return _raised(options.shared_retention if options.shared_retention is not None else options.retention[relation], options.gamma)


def _raised(base: float, gamma: float) -> float:
    """``base ** gamma`` bit for bit as core raises it (``v8Pow``; :mod:`.v8_pow`).

    v8Pow returns x for y = 1, x * x for y = 2 and sqrt(x) for y = 0.5 (+0 for -0), which these
    spell out; any other gamma is a real pow, taken once per retention and gamma (a step's rubrics
    share their relations' few retentions).
    """
    if gamma == 1:
        return base
    if gamma == 2:
        return base * base
    if gamma == 0.5:
        return math.sqrt(base + 0.0)
    key = (base, gamma)
    found = _RAISED.get(key)
    if found is None:
        if len(_RAISED) >= _RAISED_KEPT:
            _RAISED.clear()
        found = _RAISED[key] = v8_pow(base, gamma)
    return found


#: Retentions raised to a gamma other than 1, 2 and 0.5, by (retention, gamma); cleared when full
#: (per-edge retentions may each be new).
_RAISED: dict[tuple[float, float], float] = {}
_RAISED_KEPT = 4096


#: An edge as positions: (parent, child, retention).
_Placed = tuple[int, int, float]
#: Each child's kept (parent, retention) in input order, a topological order of the children,
#: and whether a pair seen before was dropped.
_Kept = tuple[dict[int, list[tuple[int, float]]], list[int], bool]


def _resolved_edges(parts: RubricParts, index_by_id: dict[str, int], options: LocalOptions) -> tuple[list[_Placed], bool]:
    """The edges in input order as positions with their retention, without the ones projectDag
    drops whatever else the rubric holds (an unknown id, a self-loop); and whether any was."""
    get_index = index_by_id.get
    placed: list[_Placed] = []
    dropped = False
    for parent_id, child_id, relation, override in parts.edges:
        parent = get_index(parent_id)
        child = get_index(child_id)
        if parent is None or child is None or parent == child:
            dropped = True
        else:
            placed.append((parent, child, _retention(options, relation, override)))
    return placed, dropped


def _kept_in_one_pass(edges: list[_Placed], size: int) -> _Kept | None:
    """projectDag for edges that hold no cycle (the usual rubric): once a pair seen before is
    dropped, none of the rest closes a cycle in input order either, so all of it is kept, and a
    topological order comes by levels (cheaper than projecting edge by edge). None when the
    edges hold a cycle."""
    by_child: dict[int, list[tuple[int, float]]] = {}
    seen_pairs: set[int] = set()
    repeated = False
    for parent, child, retention in edges:
        pair = parent * size + child
        if pair in seen_pairs:
            repeated = True
            continue
        seen_pairs.add(pair)
        _add_parent(by_child, parent, child, retention)
    # Levels: a child is placed once every parent that has parents of its own is placed (a parent
    # without parents keeps p). A pass that places none means the rest holds a cycle.
    order: list[int] = []
    placed: set[int] = set()
    pending = list(by_child)
    while pending:
        rest: list[int] = []
        for child in pending:
            for parent, _ in by_child[child]:
                if parent in by_child and parent not in placed:
                    rest.append(child)
                    break
            else:
                order.append(child)
                placed.add(child)
        if len(rest) == len(pending):
            return None
        pending = rest
    return by_child, order, repeated


def _kept_in_order(edges: list[_Placed], size: int) -> _Kept:
    """projectDag edge by edge, for edges that hold a cycle: an edge closing a cycle with the edges
    kept before it is dropped, and so is a pair seen before."""
    # Reachability as bitmasks (bit j of reach[i]: j is i or below it), kept for the criteria the
    # kept edges touch: an edge closes a cycle when its parent is below its child.
    reach: dict[int, int] = {}
    by_child: dict[int, list[tuple[int, float]]] = {}
    seen_pairs: set[int] = set()
    for parent, child, retention in edges:
        pair = parent * size + child
        below_child = reach.get(child)
        if below_child is None:
            below_child = reach[child] = 1 << child
        elif pair in seen_pairs or below_child >> parent & 1:
            continue
        seen_pairs.add(pair)
        parent_bit = 1 << parent
        if parent not in reach:
            reach[parent] = parent_bit | below_child  # nothing above it yet
        else:
            for node, below in reach.items():
                if below & parent_bit:
                    reach[node] = below | below_child
        _add_parent(by_child, parent, child, retention)
    # A topological order of the criteria with parents: a criterion has more below it than any
    # criterion below it, so more first puts every parent before its children (ties by position:
    # sorted is stable).
    return by_child, sorted(sorted(by_child), key=lambda child: -reach[child].bit_count()), True


def _add_parent(by_child: dict[int, list[tuple[int, float]]], parent: int, child: int, retention: float) -> None:
    parents = by_child.get(child)
    if parents is None:
        by_child[child] = [(parent, retention)]
    else:
        parents.append((parent, retention))
