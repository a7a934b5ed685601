"""The judge seam: where one response's per-criterion judgments come from.

A judge turns (row, response) into a :data:`~gear_bridge.rows.Judgment`: judge scores for
``canonical`` / ``official-gear`` rows, the judge's raw outputs (one string per request of
``host.requests``) for host rows. Without one, the VERL glue reads the judgments that come with the
row (``extra_info["gear_judgments"]``) or lets the service's judge make them; a judge of your own
implements this protocol and is passed as ``judge=`` to the VERL glue.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, runtime_checkable

from .rows import GearRow, Judgment

__all__ = ["JudgeCall", "Judge"]


@dataclass(frozen=True)
class JudgeCall:
    """What a judge is given for one response.

    Attributes:
        row: the parsed rubric spec of the row.
        response: the decoded response text.
        extra_info: the row's ``extra_info`` as VERL passed it.
        data_source: the row's ``data_source``.
        ground_truth: the row's ``reward_model["ground_truth"]``.
        path: where ``extra_info`` sits, for error messages (``("extra_info",)``, ``("extra_infos", 3)``).
    """

    row: GearRow
    response: str
    extra_info: Mapping[str, Any]
    data_source: Any = None
    ground_truth: Any = None
    path: tuple[str | int, ...] = field(default=("extra_info",))


@runtime_checkable
class Judge(Protocol):
    """Produces one response's judgments."""

    async def judge(self, call: JudgeCall) -> Judgment:
        """Returns the judgments of ``call.response`` against ``call.row``.

        Raises:
            RowError: the judgments cannot be had for this row (naming the field).
        """
        ...
