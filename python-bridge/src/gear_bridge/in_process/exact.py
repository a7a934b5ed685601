"""Exact inference for in-process scoring (``gear-exact``, and ``auto`` where it takes it), as core runs it.

core plans a forward variable elimination once per rubric (core/inference/elimination-plan.ts: a
visiting order chosen greedily to keep the table narrow, ties broken by the criteria's canonical
ranks, core/compile/canonical-rank.ts) with a gate table per criterion (core/compile/compile-rubric.ts,
buildGates), and runs it per response (core/inference/forward-elimination.ts). Each is ported
operation for operation, so the floats are the service's. What the service would take another way
is answered here as it does: both take mean-field for a graph where no criterion has two parents
with a common ancestor (a forest, or a multitree under the product rule, where it is exact:
core/aggregators/gear-exact.ts, needsElimination), and ``auto`` for a
plan past ``autoExactMaxCost`` or ``exactMaxWidth``. A plan costlier than
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
           "gate_table", "needs_elimination", "is_multitree", "MULTITREE_MAX_CRITERIA"]

#: Table cells per response up to which exact inference runs in the worker. CPython takes ~0.15 us a
#: cell (50 us at 256-512 cells, 325 us at 2048-4096; the shipped rubrics cost tens), about what a
#: response's share of a round trip to the service costs at 512, where V8 runs the plan far faster.
MAX_COST = 512


#: How a step runs (:func:`exact_scores` takes the usual kinds by a shorter way, with core's operations).
_ROOT_FIRST = 0  # a criterion without parents joins a table of one cell
_ONE_PARENT = 1  # a criterion whose one parent is the table's only bit
_JOINS = 2  # a criterion without parents joins a wider table
_GATED = 3  # any other criterion with parents
#: Removals that sum out the only bit of a two-cell table.
_SUM_OUT_ONLY_BIT = (((0,), (1,)),)


#: One visited criterion (a plain tuple: a plan is built per new rubric, its steps read per
#: response): how it runs, the criterion, its table width ``n`` cells (2^width), whether it joins
#: the table, its gate per cell (None for a criterion without parents), and the sums-out after it,
#: each as the source cell pairs of the halved table (None for none).
_Step = tuple[int, int, int, bool, "tuple[float, ...] | None", "tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] | None"]


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


#: :func:`exact_plan`'s answer where the service scores with GEAR's mean-field update (a forest or a
#: multitree, or ``auto``'s choice).
MEAN_FIELD = None


class _Declined:
    pass


#: :func:`exact_plan`'s answer where the service must score the rubric.
DECLINED = _Declined()


def canonical_ranks(parts: RubricParts, among: Sequence[int] | None = None) -> list[int]:
    """core's canonicalRank: criteria ordered by text (JavaScript's order), weight, role, position.
    With ``among``, the ranks of those criteria among themselves (the others' are 0): what a plan
    needs, since it orders by rank only the criteria with parents or children."""
    nodes = range(len(parts.texts)) if among is None else among
    texts, weights, roles = parts.texts, parts.weights, parts.roles
    keys = javascript_string_keys([texts[i] for i in nodes])
    rank = [0] * len(texts)
    ordered = sorted(zip(keys, [weights[i] for i in nodes], [roles[i] for i in nodes], nodes))
    for position, key in enumerate(ordered):
        rank[key[3]] = position
    return rank


#: core's MULTITREE_MAX_CRITERIA (core/inference/multitree.ts): larger rubrics are not checked, and
#: take elimination.
MULTITREE_MAX_CRITERIA = 4096


def needs_elimination(layout: Layout) -> bool:
    """core's needsElimination: whether a criterion has two parents, and, under the product rule,
    two of them share an ancestor. Elsewhere (a forest, a multitree) the parents of each criterion
    are independent, and the mean-field update is the exact marginal."""
    if not any(len(edges) >= 2 for _, edges in layout.steps):
        return False
    return layout.rule != "product" or not is_multitree(layout)


def is_multitree(layout: Layout) -> bool:
    """core's isMultitree: whether no criterion has two parents with a common ancestor (each parent
    its own ancestor), i.e. at most one directed path joins any two criteria."""
    if layout.size > MULTITREE_MAX_CRITERIA:
        return False
    # Each criterion's ancestors and itself, one bit each; steps visit the criteria with parents in a
    # topological order, and a criterion without parents is its own bit.
    ancestors: dict[int, int] = {}
    for child, edges in layout.steps:
        seen = 0
        for parent, _ in edges:
            bits = ancestors.get(parent, 1 << parent)
            if bits & seen:
                return False
            seen |= bits
        ancestors[child] = seen | 1 << child
    return True


def exact_plan(layout: Layout, parts: RubricParts, options: LocalOptions, aggregator: str) -> ExactPlan | _Declined | None:
    """The plan that scores ``layout`` under ``aggregator`` (gear-exact or auto); :data:`MEAN_FIELD`
    where the service takes mean-field; :data:`DECLINED` where the service must score it."""
    if not needs_elimination(layout):
        return MEAN_FIELD  # a forest or a multitree, where mean-field is exact
    parents, children = _graph(layout)
    linked = sorted(parents.keys() | children.keys())
    plan = _linked_plan(layout.size, parents, children, canonical_ranks(parts, linked))
    cost = layout.size - len(linked) + plan.cost  # a criterion alone costs its one cell
    feasible = plan.max_width <= options.exact_max_width
    if aggregator == "auto" and not (feasible and cost <= options.auto_exact_max_cost):
        return MEAN_FIELD
    if not feasible or cost > MAX_COST:
        return DECLINED
    edges_of = dict(layout.steps)
    steps: list[_Step] = []
    gates: tuple[float, ...]
    for node, width, grows, bits, removed in zip(plan.order, plan.widths, plan.grows, plan.bits, plan.removals):
        n = 1 << width
        if not bits:  # a root: it joins the table, and frees no parent
            steps.append((_ROOT_FIRST if n == 1 else _JOINS, node, n, grows, None, None))
            continue
        if n == 2:  # its one parent is the table's only bit: gate_table((r,)) is (r, 1.0), the parent fails or holds
            kind, gates = _ONE_PARENT, (edges_of[node][0][1], 1.0)
        elif len(bits) == 1:
            kind, retention, bit = _GATED, edges_of[node][0][1], bits[0]
            gates = tuple([1.0 if f >> bit & 1 else retention for f in range(n)])
        else:
            kind, gates = _GATED, _per_cell(gate_table(tuple([retention for _, retention in edges_of[node]])), bits, n)
        if grows:
            width += 1
        sums: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        for bit in removed:
            sums.append(_sum_out(bit, width))
            width -= 1
        removals = None if not sums else _SUM_OUT_ONLY_BIT if sums == [_SUM_OUT_ONLY_BIT[0]] else tuple(sums)
        steps.append((kind, node, n, grows, gates, removals))
    return ExactPlan(1 << plan.max_width, tuple(steps))


def _sum_out(bit: int, width: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Summing bit ``bit`` out of a table ``width`` bits wide: each cell of the halved table's two
    source cells (the bit off, on)."""
    low = (1 << bit) - 1
    sources = [(g & low) | ((g >> bit) << (bit + 1)) for g in range(1 << (width - 1))]
    return tuple(sources), tuple([source | (1 << bit) for source in sources])


def elimination_plan(layout: Layout, parts: RubricParts) -> EliminationPlan:
    """core's plan for the rubric ``layout`` was compiled from.

    The criteria with neither parents nor children (most of a rubric) come first, by rank: at the
    start the frontier is empty, their key is (0, 0) and every other ready criterion's, a root with
    children, is (1, 1); and visiting one changes nothing (a table of one cell each)."""
    rank = canonical_ranks(parts)
    parents, children = _graph(layout)
    alone = sorted([node for node in range(layout.size) if node not in parents and node not in children], key=rank.__getitem__)
    plan = _linked_plan(layout.size, parents, children, rank)
    return EliminationPlan(alone + plan.order, [0] * len(alone) + plan.widths, [False] * len(alone) + plan.grows,
                           [()] * len(alone) + plan.bits, [[] for _ in alone] + plan.removals, plan.max_width, len(alone) + plan.cost)


def _graph(layout: Layout) -> tuple[dict[int, tuple[int, ...]], dict[int, list[int]]]:
    """Each criterion's parents (in input order: core's CSR order) and children, for the criteria
    that have them: together, the criteria a plan visits."""
    parents: dict[int, tuple[int, ...]] = {}
    children: dict[int, list[int]] = {}
    for child, edges in layout.steps:
        parents[child] = tuple([parent for parent, _ in edges])
        for parent, _ in edges:
            found = children.get(parent)
            if found is None:
                children[parent] = [child]
            else:
                found.append(child)
    return parents, children


def _linked_plan(size: int, parents: dict[int, tuple[int, ...]], children: dict[int, list[int]], rank: Sequence[int]) -> EliminationPlan:
    """planElimination over the criteria with parents or children (the others come first and
    change nothing), step for step: each step visits the ready criterion that leaves the narrowest
    frontier, then the lowest peak, then the lowest rank. Every ready criterion sees the same
    frontier, so the key is (joins - frees, joins, rank), as one int. ``cost`` counts these steps."""
    children_left = {node: len(of) for node, of in children.items()}
    parents_left = {node: len(of) for node, of in parents.items()}
    ready = [node for node in children if node not in parents]
    base = size + 1  # ranks lie in [0, size]
    frontier: list[int] = []
    order: list[int] = []
    widths: list[int] = []
    grows: list[bool] = []
    bits: list[tuple[int, ...]] = []
    removals: list[list[int]] = []
    max_width = 0
    cost = 0
    for _ in range(len(parents) + len(ready)):
        best = -1
        best_key = 0
        for node in ready:
            joins = 1 if node in children else 0
            freed = 0
            for parent in parents.get(node, ()):
                if children_left[parent] == 1:
                    freed += 1
            key = ((joins - freed) * 2 + joins) * base + rank[node]
            if best < 0 or key < best_key:
                best = node
                best_key = key
        ready.remove(best)
        order.append(best)
        widths.append(len(frontier))
        cost += 1 << len(frontier)
        of = parents.get(best, ())
        bits.append(tuple([frontier.index(parent) for parent in of]))
        joined = best in children  # not `joins`: mypyc types a name once, and that one is an int above
        grows.append(joined)
        if joined:
            frontier.append(best)
            max_width = max(max_width, len(frontier))
        finished = []
        for parent in of:
            children_left[parent] -= 1
            if children_left[parent] == 0:
                finished.append(frontier.index(parent))
        finished.sort(reverse=True)
        for bit in finished:
            cost += 1 << (len(frontier) - 1)
            frontier.pop(bit)
        removals.append(finished)
        for child in children.get(best, ()):
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
    as core adds them (``reduce``: ``sum()`` compensates since Python 3.12). The usual steps of a
    rubric's graph (a root joining an empty table, a child of the table's one criterion, summing
    that one out) are written out: the same operations on the same cells."""
    t = [0.0] * plan.cells
    t[0] = 1.0
    q = list(p)  # a criterion without parents keeps its p
    for kind, node, n, grows, gates, removals in plan.steps:
        pi = p[node]
        if kind == _ONE_PARENT:
            c0 = t[0]
            c1 = t[1]
            g0, g1 = gates  # type: ignore[misc]
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
        elif kind == _ROOT_FIRST:
            c0 = t[0]
            t[1] = c0 * pi
            t[0] = c0 * (1 - pi)
        else:
            cells = t[:n]
            if gates is None:  # an outer product
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
        if removals is not None:
            if removals is _SUM_OUT_ONLY_BIT:
                t[0] = t[0] + t[1]
            else:
                for low, high in removals:
                    # Every target cell lies below every source cell not yet read (core sums in place).
                    t[: len(low)] = [t[a] + t[b] for a, b in zip(low, high)]
    return q
