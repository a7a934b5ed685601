"""The judge seam: where one response's per-criterion judgments come from.

A judge turns (row, response) into a :data:`~gear_bridge.rows.Judgment`: judge scores for
``canonical`` / ``official-gear`` rows, the judge's raw outputs (one string per request of
``host.requests``) for host rows. The default, :class:`CallJudgments`, reads the judgments that come
with the call (``extra_info["gear_judgments"]``); a judge that runs an LLM implements the same
protocol and is passed as ``judge=`` to the VERL glue.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, runtime_checkable

from .exceptions import RowError
from .rows import GearRow, Judgment, parse_judgment

__all__ = ["JudgeCall", "Judge", "CallJudgments"]


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


class CallJudgments:
    """The default judge: the judgments come with the call, in ``extra_info[key]``.

    Args:
        key: the ``extra_info`` key (``gear_judgments`` unless configured).
    """

    def __init__(self, key: str = "gear_judgments") -> None:
        self.key = key

    async def judge(self, call: JudgeCall) -> Judgment:
        """Reads and validates ``extra_info[key]``.

        Raises:
            RowError: it is missing or malformed (naming the field).
        """
        return self.read(call)

    def read(self, call: JudgeCall) -> Judgment:
        """``judge`` without the event loop (the batch paths read 896 of these per step).

        Raises:
            RowError: it is missing or malformed (naming the field).
        """
        path = (*call.path, self.key)
        if self.key not in call.extra_info:
            wanted = "the judge's raw outputs, one string per judge request" if call.row.is_host else 'judge scores {"p": [...], "d": [...]}'
            raise RowError(path, f"missing: {wanted} for this response (or configure a judge)")
        return parse_judgment(call.extra_info[self.key], call.row, path)
