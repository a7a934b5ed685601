"""A step's FCP report over the responses scored in-process, as core/diagnostics/fcp.ts counts it.

Cases are (response, kept edge) pairs in response order, children in rubric order, each child's
parent edges in input order; sums are accumulated in that order, so one report over the same
responses equals the service's ``rubric.scoreColumns`` ``fcp`` report float for float. It takes
its place in :class:`gear_bridge.fcp.FcpTally`.
"""

from __future__ import annotations

from typing import Any, Sequence

from .layout import Layout

__all__ = ["FcpCounter"]


class FcpCounter:
    """Leakage and preservation of one aggregator's effective scores, over every relation, threshold 0.5.

    Args:
        aggregator: the aggregator (flat, hard, gear or gear-exact; auto's step FCP is gear's) whose
            scores :meth:`add` is given.
    """

    def __init__(self, aggregator: str) -> None:
        self.aggregator = aggregator
        self.responses = 0
        self.considered_edges = 0
        self.leakage_cases = 0
        self.preserved_cases = 0
        self._leak = 0.0
        self._keep = 0.0

    def add(self, layout: Layout, p: Sequence[float], q: Sequence[float]) -> None:
        """Counts one response: its judge scores and its effective scores under the aggregator."""
        self.responses += 1
        scale = 0.0 if layout.denominator == 0 else 1 / layout.denominator
        weights = layout.weights
        for child, parents in layout.gates:
            self.considered_edges += len(parents)
            p_child = p[child]
            if p_child < 0.5:
                continue
            for parent in parents:
                if p[parent] < 0.5:
                    self.leakage_cases += 1
                    w = abs(weights[child]) * scale
                    self._leak = self._leak + w * q[child]
                else:
                    self.preserved_cases += 1
                    self._keep = self._keep + q[child] / p_child

    def report(self) -> dict[str, Any]:
        """The report, in the service's shape (``diagnostics.fcp``)."""
        return {
            "responses": self.responses,
            "consideredEdges": self.considered_edges,
            "leakageCases": self.leakage_cases,
            "preservedCases": self.preserved_cases,
            "byAggregator": {self.aggregator: {
                "leakage": None if self.leakage_cases == 0 else self._leak / self.leakage_cases,
                "preservation": None if self.preserved_cases == 0 else self._keep / self.preserved_cases,
            }},
        }
