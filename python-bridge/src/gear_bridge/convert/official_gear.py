"""Official GEAR rows (LvCan926/GEAR: ``extra_info = {prompt, reward_model: {rubrics, graph}}``, see
adapters/official-gear/README.md) -> VERL rows in gear's layout.

Accepted records: a VERL row whose ``extra_info`` holds ``prompt`` and ``reward_model``, a bare
``{prompt, reward_model}``, or a golden-file rubric ``{key, reward_model}`` (no prompt; for
scoring-only use). Formats: ``gear`` (the official batch judge's raw outputs; needs a prompt) and
``official-gear`` (judge scores against the ``reward_model``, default).
"""

from __future__ import annotations

from typing import Any, Mapping

from ..exceptions import RowError
from .rows_out import verl_row

__all__ = ["OFFICIAL_FORMATS", "official_gear_row"]

OFFICIAL_FORMATS = ("official-gear", "gear")


def official_gear_row(record: Mapping[str, Any], *, index: int, format: str = "official-gear", data_source: str | None = None,
                      gear_as: str = "json") -> dict[str, Any]:
    """One official GEAR record as a VERL row.

    Args:
        record: the record (see the module docstring).
        index: its position.
        format: ``official-gear`` or ``gear``.
        data_source: overrides the record's ``data_source`` (default ``official-gear``).
        gear_as: ``json`` or ``dict`` for ``extra_info["gear"]``.

    Raises:
        RowError: the record is malformed (naming the field).
    """
    where: tuple[str | int, ...] = (index,)
    if format not in OFFICIAL_FORMATS:
        raise RowError(("format",), f"must be one of {', '.join(OFFICIAL_FORMATS)}, got {format!r}")
    source: Mapping[str, Any] = record
    if isinstance(record.get("extra_info"), Mapping) and "reward_model" in record["extra_info"]:
        source = record["extra_info"]
        where = (*where, "extra_info")
    reward_model = source.get("reward_model")
    if not isinstance(reward_model, Mapping):
        raise RowError((*where, "reward_model"), "missing: the official {rubrics, graph}")
    rubrics = reward_model.get("rubrics")
    if not isinstance(rubrics, list) or not rubrics:
        raise RowError((*where, "reward_model", "rubrics"), "must be a non-empty list of {id?, criterion, points, tags}")
    # The graph is passed through as annotated: the server drops (and reports) invalid edges as the
    # official aggregator does.
    prompt = source.get("prompt", record.get("prompt"))
    if prompt is None:
        if format == "gear":
            raise RowError((*where, "prompt"), 'missing: the "gear" host format judges the conversation')
        prompt = []
    if not isinstance(prompt, list) or not all(isinstance(m, Mapping) for m in prompt):
        raise RowError((*where, "prompt"), "must be a list of chat messages {role, content}")
    model = dict(reward_model)
    gear = {"format": "gear", "row": {"prompt": prompt, "reward_model": model}} if format == "gear" else {"format": "official-gear", "reward_model": model}
    chosen = data_source or (record.get("data_source") if isinstance(record.get("data_source"), str) else None) or "official-gear"
    extra = {"key": record["key"]} if isinstance(record.get("key"), str) else None
    return verl_row(data_source=chosen, prompt=prompt, gear=gear, index=index, gear_as=gear_as, extra=extra)
