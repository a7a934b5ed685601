"""Exact inference for in-process scoring (``gear-exact``, and ``auto`` where it takes it), as core runs it.

core plans a forward variable elimination once per rubric (core/inference/elimination-plan.ts: a
visiting order chosen greedily to keep the table narrow, ties broken by the criteria's canonical
ranks, core/compile/canonical-rank.ts) with a gate table per criterion (core/compile/compile-rubric.ts,
buildGates), and runs it per response (core/inference/forward-elimination.ts). Each is ported
operation for operation, so the floats are the service's. What the service would take another way
is answered here as it does: ``auto`` takes mean-field for a graph without a criterion of two
parents, and for a plan past ``autoExactMaxCost`` or ``exactMaxWidth``. A plan costlier than
:data:`MAX_COST` table cells per response is left to the service (None), where V8 runs it faster
than a round trip costs; so is ``gear-exact`` past ``exactMaxWidth``, which the service refuses.
"""

from __future__ import annotations

from functools import reduce
from operator import add, mul
from typing import NamedTuple, Sequence

from ..rows import javascript_string_keys
from .layout import Layout
from .options import LocalOptions
from .rubric_rows import RubricParts

__all__ = ["ExactPlan", "EliminationPlan", "MEAN_FIELD", "DECLINED", "MAX_COST", "exact_plan", "exact_scores", "elimination_plan",
           "gate_table"]

#: Table cells per response up to which exact inference runs in the worker. CPython takes ~0.15 us a
#: cell (50 us at 256-512 cells, 325 us at 2048-4096; the shipped rubrics cost tens), about what a
#: response's share of a round trip to the service costs at 512, where V8 runs the plan far faster.
MAX_COST = 512


class _Step(NamedTuple):
    """One visited criterion: its table width ``n`` cells (2^width), whether it joins the table,
    its gate per cell (None for a criterion without parents), and the sums-out after it, each as
    the source cell pairs of the halved table."""

    node: int
    n: int
    grows: bool
    gates: tuple[float, ...] | None
    removals: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]


class EliminationPlan(NamedTuple):
    """core's EliminationPlan: the visiting order, each step's table width, whether its criterion
    joins the table, its parents' bits in the table, the bits summed out after it (descending);
    the widest table and the table cells touched per response."""

    order: list[int]
    widths: list[int]
    grows: list[bool]
    bits: list[tuple[int, ...]]
    removals: list[list[int]]
    max_width: int
    cost: int


class ExactPlan(NamedTuple):
    """A rubric's elimination plan, ready to run: the table's cells and the steps in visiting order."""

    cells: int
    steps: tuple[_Step, ...]


#: :func:`exact_plan`'s answer where the service scores with GEAR's mean-field update (``auto``).
MEAN_FIELD = None


class _Declined:
    pass


#: :func:`exact_plan`'s answer where the service must score the rubric.
DECLINED = _Declined()


def canonical_ranks(parts: RubricParts) -> list[int]:
    """core's canonicalRank: criteria ordered by text (JavaScript's order), weight, role, position."""
    keys = javascript_string_keys(parts.texts)
    weights, roles = parts.weights, parts.roles
    order = sorted(range(len(keys)), key=lambda i: (keys[i], weights[i], roles[i], i))
    rank = [0] * len(order)
    for position, criterion in enumerate(order):
        rank[criterion] = position
    return rank


def exact_plan(layout: Layout, parts: RubricParts, options: LocalOptions, aggregator: str) -> ExactPlan | _Declined | None:
    """The plan that scores ``layout`` under ``aggregator`` (gear-exact or auto); :data:`MEAN_FIELD`
    where auto takes mean-field; :data:`DECLINED` where the service must score it."""
    parents, retentions = _parents(layout)
    if aggregator == "auto" and max(map(len, parents)) < 2:
        return MEAN_FIELD  # chooseAutoMethod: mean-field is exact there
    plan = _plan(layout.size, parents, canonical_ranks(parts))
    feasible = plan.max_width <= options.exact_max_width
    if aggregator == "auto" and not (feasible and plan.cost <= options.auto_exact_max_cost):
        return MEAN_FIELD
    if not feasible or plan.cost > MAX_COST:
        return DECLINED
    steps = []
    for step, node in enumerate(plan.order):
        n = 1 << plan.widths[step]
        if not parents[node]:
            gates = None
        elif len(parents[node]) == 1:  # gate_table((r,)) is (r, 1.0): the parent fails or holds
            retention, bit = retentions[node][0], plan.bits[step][0]
            gates = tuple([1.0 if f >> bit & 1 else retention for f in range(n)])
        else:
            gates = _per_cell(gate_table(retentions[node]), plan.bits[step], n)
        width = plan.widths[step] + (1 if plan.grows[step] else 0)
        sums = []
        for bit in plan.removals[step]:
            low = (1 << bit) - 1
            sources = [(g & low) | ((g >> bit) << (bit + 1)) for g in range(1 << (width - 1))]
            sums.append((tuple(sources), tuple([source | (1 << bit) for source in sources])))
            width -= 1
        if gates is not None or plan.grows[step] or sums:  # else a criterion alone: it keeps p, the table stays
            steps.append(_Step(node, n, plan.grows[step], gates, tuple(sums)))
    return ExactPlan(1 << plan.max_width, tuple(steps))


def elimination_plan(layout: Layout, parts: RubricParts) -> EliminationPlan:
    """core's plan for the rubric ``layout`` was compiled from."""
    return _plan(layout.size, _parents(layout)[0], canonical_ranks(parts))


def _parents(layout: Layout) -> tuple[list[tuple[int, ...]], list[tuple[float, ...]]]:
    """Each criterion's parents and their edges' retentions, in input order (core's CSR order)."""
    parents: list[tuple[int, ...]] = [()] * layout.size
    retentions: list[tuple[float, ...]] = [()] * layout.size
    for child, edges in layout.steps:
        parents[child] = tuple([parent for parent, _ in edges])
        retentions[child] = tuple([retention for _, retention in edges])
    return parents, retentions


def _plan(size: int, parents: Sequence[tuple[int, ...]], rank: Sequence[int]) -> EliminationPlan:
    """planElimination, step for step: each step visits the ready criterion that leaves the
    narrowest frontier, then the lowest peak, then the lowest rank (as one int key here).

    The criteria with neither parents nor children (most of a rubric) come first, by rank: at the
    start the frontier is empty, their key is (0, 0) and every other ready criterion's, a root with
    children, is (1, 1); and visiting one changes nothing. So the loop need not scan them.
    """
    child_count = [0] * size
    child_lists: list[list[int]] = [[] for _ in range(size)]
    for child in range(size):
        for parent in parents[child]:
            child_count[parent] += 1
            child_lists[parent].append(child)
    parents_left = [len(p) for p in parents]
    children_left = list(child_count)
    joins_of = [1 if count else 0 for count in child_count]
    order = sorted([node for node in range(size) if not parents[node] and not child_count[node]], key=rank.__getitem__)
    ready = [node for node in range(size) if not parents[node] and child_count[node]]
    frontier: list[int] = []
    widths: list[int] = [0] * len(order)
    grows: list[bool] = [False] * len(order)
    bits: list[tuple[int, ...]] = [()] * len(order)
    removals: list[list[int]] = [[] for _ in order]
    max_width = 0
    cost = len(order)  # 2^0 cells each
    base = size + 1  # keys (after, peak, rank) as ((after * base) + peak) * base + rank: each part lies in [0, size]
    for _ in range(size - len(order)):
        width = len(frontier)
        best = -1
        best_key = -1
        for node in ready:
            joins = joins_of[node]
            freed = 0
            for parent in parents[node]:
                if children_left[parent] == 1:
                    freed += 1
            key = ((width + joins - freed) * base + width + joins) * base + rank[node]
            if best_key < 0 or key < best_key:
                best = node
                best_key = key
        ready.remove(best)
        order.append(best)
        widths.append(width)
        bits.append(tuple([frontier.index(parent) for parent in parents[best]]))
        cost += 1 << width
        joins = child_count[best] > 0
        grows.append(joins)
        if joins:
            frontier.append(best)
            max_width = max(max_width, len(frontier))
        finished = []
        for parent in parents[best]:
            children_left[parent] -= 1
            if children_left[parent] == 0:
                finished.append(frontier.index(parent))
        finished.sort(reverse=True)
        for bit in finished:
            cost += 1 << (len(frontier) - 1)
            frontier.pop(bit)
        removals.append(finished)
        for child in child_lists[best]:
            parents_left[child] -= 1
            if parents_left[child] == 0:
                ready.append(child)
    return EliminationPlan(order, widths, grows, bits, removals, max_width, cost)


def gate_table(retention: tuple[float, ...]) -> list[float]:
    """buildGates for one criterion: for each on/off pattern of its parents (bit k: parent k holds),
    the product of the failing parents' retentions, multiplied in ascending order of retention."""
    degree = len(retention)
    by_retention = sorted(range(degree), key=lambda k: (retention[k], k))
    position = [0] * degree
    for at, k in enumerate(by_retention):
        position[k] = at
    product = [1.0] * (1 << degree)
    for m in range(1, 1 << degree):
        top = m.bit_length() - 1
        product[m] = product[m ^ (1 << top)] * retention[by_retention[top]]
    gate = []
    for c in range(1 << degree):
        failing = 0
        for k in range(degree):
            if not c >> k & 1:
                failing |= 1 << position[k]
        gate.append(product[failing])
    return gate


def _per_cell(gate: list[float], bits: tuple[int, ...], n: int) -> tuple[float, ...]:
    """A criterion's gate for each cell of its table, by its parents' bits there."""
    cells = []
    for f in range(n):
        pattern = 0
        for k, bit in enumerate(bits):
            pattern |= (f >> bit & 1) << k
        cells.append(gate[pattern])
    return tuple(cells)


def exact_scores(plan: ExactPlan, p: Sequence[float]) -> list[float] | None:
    """forwardEliminate: the exact effective scores, or None where core would divide by a zero mass.

    Each cell's products are core's; the two sums over a table (gated, mass) are added left to right
    as core adds them (``reduce``: ``sum()`` compensates since Python 3.12)."""
    t = [0.0] * plan.cells
    t[0] = 1.0
    q = list(p)  # a criterion without parents keeps its p
    for node, n, grows, gates, removals in plan.steps:
        pi = p[node]
        if n == 2 and gates is not None:  # the usual step (one parent in the table), written out
            c0 = t[0]
            c1 = t[1]
            g0, g1 = gates
            mass = 0.0 + c0 + c1
            if mass == 0:
                return None
            q[node] = pi * ((0.0 + c0 * g0 + c1 * g1) / mass)
            if grows:
                a0 = pi * g0
                a1 = pi * g1
                t[2] = c0 * a0
                t[3] = c1 * a1
                t[0] = c0 * (1 - a0)
                t[1] = c1 * (1 - a1)
            for low, high in removals:
                t[: len(low)] = [t[a] + t[b] for a, b in zip(low, high)]
            continue
        cells = t[:n]
        if gates is None:  # a criterion without parents joins the table: an outer product
            off = 1 - pi
            t[n : 2 * n] = [cell * pi for cell in cells]
            t[:n] = [cell * off for cell in cells]
        else:
            mass = reduce(add, cells, 0.0)
            if mass == 0:
                return None
            q[node] = pi * (reduce(add, map(mul, cells, gates), 0.0) / mass)
            if grows:
                alphas = [pi * g for g in gates]
                t[n : 2 * n] = list(map(mul, cells, alphas))
                t[:n] = [cell * (1 - alpha) for cell, alpha in zip(cells, alphas)]
        for low, high in removals:
            # Every target cell lies below every source cell not yet read (core sums in place).
            t[: len(low)] = [t[a] + t[b] for a, b in zip(low, high)]
    return q
