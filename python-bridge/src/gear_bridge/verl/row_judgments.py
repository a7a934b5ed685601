"""Judgments that come with a VERL row, and the guard against reading another rollout's.

verl repeats a prompt's row for its ``n`` rollouts by reference: every rollout of a group gets the
same ``extra_info`` dict. Judgments in it are therefore per prompt, not per response, and verl's
reward-loop ``naive`` and ``rate_limited`` managers merge each rollout's ``tool_extra_fields`` into
that shared dict in place, so a call can read the judgments of another rollout of its group.
:class:`SharedRowGuard` refuses judgments read from a dict that was already read for a different
response.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Mapping

from ..exceptions import PathPart, RowError, format_path
from ..rows import GearRow, Judgment, parse_judge_outputs, parse_scores
from ..settings import Settings

__all__ = ["READ_MARK", "row_judgments", "SharedRowGuard", "shared_row_guard"]

#: The key the guard adds to a plain ``extra_info`` dict it read judgments from: (id of the dict, the
#: response). A copy of the dict (another id) is a new row; the mark lives exactly as long as the dict.
READ_MARK = "_gear_read_for"


def row_judgments(extra_info: Mapping[str, Any], row: GearRow, settings: Settings, path: tuple[PathPart, ...]) -> Judgment | None:
    """The row's own judgments (``extra_info[judgments_key]``), or None for the judge to make them.

    ``judgments="auto"``: the row's when present, else None. ``"precomputed"``: the row's, required.
    ``"judge"``: always None.

    Raises:
        RowError: malformed judgments, or missing ones with ``judgments="precomputed"``.
    """
    if settings.judgments == "judge":
        return None
    key = settings.judgments_key
    if key not in extra_info:
        if settings.judgments == "precomputed":
            wanted = "the judge's raw outputs, one string per judge request" if row.is_host else 'judge scores {"p": [...], "d": [...]}'
            raise RowError((*path, key), f'missing: {wanted} for this response (judgments="precomputed")')
        return None
    value = extra_info[key]
    return parse_judge_outputs(value, (*path, key)) if row.is_host else parse_scores(value, (*path, key))


class SharedRowGuard:
    """Remembers which response each ``extra_info`` was read for: a plain dict in the dict itself
    (:data:`READ_MARK`), any other mapping in a map of the ``size`` most recent ones (holding them,
    so an id is not reused while remembered)."""

    def __init__(self, size: int = 65536) -> None:
        self.size = size
        self._others: OrderedDict[int, tuple[Mapping[str, Any], str | bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def check(self, extra_info: Mapping[str, Any], response: str | bytes, path: tuple[PathPart, ...], key: str) -> None:
        """Raises if ``extra_info`` was read before for a different response.

        ``response`` is the response's text, or the bytes of its token ids (GearRewardManager, which
        does not decode responses it need not): equal for equal responses, either way.

        Raises:
            RowError: at ``path.key``, naming the cause and the configurations that work.
        """
        at = id(extra_info)
        with self._lock:
            if type(extra_info) is dict:
                mark = extra_info.get(READ_MARK)
                if not (isinstance(mark, tuple) and len(mark) == 2 and mark[0] == at and type(mark[1]) is type(response)):
                    extra_info[READ_MARK] = (at, response)  # a first reading, a copied mark, or the other kind
                    return
                seen = mark[1]
            else:
                entry = self._others.get(at)
                if entry is None or entry[0] is not extra_info or type(entry[1]) is not type(response):
                    self._others[at] = (extra_info, response)
                    self._others.move_to_end(at)
                    while len(self._others) > self.size:
                        self._others.popitem(last=False)
                    return
                seen = entry[1]
        if seen != response:
            raise RowError(
                (*path, key),
                f"one extra_info dict carries judgments for responses of different text: verl shares a prompt's extra_info "
                f"between all its rollouts (and its naive / rate_limited reward managers merge tool_extra_fields into it in "
                f"place), so the judgments at {format_path((*path, key))} cannot be this response's. Let gear judge (judge_url, "
                "or verl's reward model), or use GearRewardManager, which reads per-rollout judgments from tool_extra_fields "
                "into a copy",
            )

    def remembered(self) -> int:
        """How many mappings other than plain dicts the guard holds now."""
        return len(self._others)


_guard = SharedRowGuard()


def shared_row_guard() -> SharedRowGuard:
    """The process's guard."""
    return _guard
