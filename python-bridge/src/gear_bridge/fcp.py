"""A step's false-credit-propagation figure, gathered from the scoring requests that carry it.

``rubric.scoreColumns`` returns the ``diagnostics.fcp`` report of the responses it scored when asked
(``fcp``), so a step's figure costs no second request carrying every score again. A step split
into several requests (the server's limits) gives one report each; they are combined here by their
case counts.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

__all__ = ["FcpTally"]


class FcpTally:
    """The FCP reports of one step's scoring requests.

    Args:
        aggregators: the aggregators whose L_FCP the reports carry.
    """

    def __init__(self, aggregators: Sequence[str]) -> None:
        self.aggregators = list(aggregators)
        self.reports: list[Mapping[str, Any]] = []

    @property
    def params(self) -> dict[str, Any]:
        """The ``fcp`` param of ``rubric.scoreColumns``."""
        return {"aggregators": self.aggregators}

    def add(self, report: Any) -> None:
        if isinstance(report, Mapping):
            self.reports.append(report)

    def leakage(self, aggregator: str) -> float:
        """L_FCP under ``aggregator`` over every report (NaN without a leakage case)."""
        total = cases = 0.0
        for report in self.reports:
            count = report.get("leakageCases", 0)
            entry = (report.get("byAggregator") or {}).get(aggregator) or {}
            value = entry.get("leakage")
            if not count:
                continue
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                return math.nan
            if len(self.reports) == 1:
                return float(value)  # the server's figure as it gave it
            total += float(value) * count
            cases += count
        return total / cases if cases else math.nan
