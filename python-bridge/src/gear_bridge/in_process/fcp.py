"""A step's FCP report over the responses scored in-process, as core/diagnostics/fcp.ts counts it.

Cases are (response, kept edge) pairs in response order, children in rubric order, each child's
parent edges in input order; sums are accumulated in that order, so one report over the same
responses equals the service's ``rubric.scoreColumns`` ``fcp`` report float for float. It takes
its place in :class:`gear_bridge.fcp.FcpTally`.
"""

from __future__ import annotations

from typing import Any, Sequence

from .aggregate import method_scores
from .layout import Layout

__all__ = ["FcpCounter"]


class FcpCounter:
    """Leakage and preservation of ``aggregators`` (flat, hard, gear) over every relation, threshold 0.5."""

    def __init__(self, aggregators: Sequence[str]) -> None:
        self.aggregators = list(aggregators)
        self.responses = 0
        self.considered_edges = 0
        self.leakage_cases = 0
        self.preserved_cases = 0
        self._leak = [0.0] * len(self.aggregators)
        self._keep = [0.0] * len(self.aggregators)

    def add(self, layout: Layout, p: Sequence[float], d: Sequence[bool] | None, known: dict[str, Sequence[float]] | None = None) -> None:
        """Counts one response; ``known`` holds effective scores already computed, by method."""
        given = known or {}
        q = [given[m] if m in given else method_scores(layout, m, p, d) for m in self.aggregators]
        self.responses += 1
        scale = 0.0 if layout.denominator == 0 else 1 / layout.denominator
        for child, parents in layout.gates:
            for parent in parents:
                self.considered_edges += 1
                p_child = p[child]
                if p_child < 0.5:
                    continue
                if p[parent] < 0.5:
                    self.leakage_cases += 1
                    w = abs(layout.weights[child]) * scale
                    for m, qm in enumerate(q):
                        self._leak[m] = self._leak[m] + w * qm[child]
                else:
                    self.preserved_cases += 1
                    for m, qm in enumerate(q):
                        self._keep[m] = self._keep[m] + qm[child] / p_child

    def report(self) -> dict[str, Any]:
        """The report, in the service's shape (``diagnostics.fcp``)."""
        by = {}
        for m, name in enumerate(self.aggregators):
            by[name] = {
                "leakage": None if self.leakage_cases == 0 else self._leak[m] / self.leakage_cases,
                "preservation": None if self.preserved_cases == 0 else self._keep[m] / self.preserved_cases,
            }
        return {"responses": self.responses, "consideredEdges": self.considered_edges, "leakageCases": self.leakage_cases,
                "preservedCases": self.preserved_cases, "byAggregator": by}
