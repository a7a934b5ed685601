"""The VERL row converters share: building a row, and writing JSONL or parquet."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from ..exceptions import RowError
from ..protocol import stable_json

__all__ = ["verl_row", "write_rows", "read_jsonl", "edge_relation"]

#: Official GEAR edge types -> canonical relations.
_RELATIONS = {"weak_prerequisite": "weak", "strong_prerequisite": "strong", "trigger": "activation"}
#: Official GEAR node types -> canonical roles.
_ROLES = {"foundation": "foundation", "bonus": "bonus", "penalty": "penalty", "trigger": "activation"}


def edge_relation(edge_type: Any, path: Sequence[str | int]) -> str:
    """The canonical relation of an official edge type.

    Raises:
        RowError: an unknown type (naming the field).
    """
    if edge_type not in _RELATIONS:
        raise RowError(tuple(path), f"must be one of {', '.join(_RELATIONS)}, got {edge_type!r}")
    return _RELATIONS[edge_type]


def node_role(node_type: Any) -> str | None:
    """The canonical role of an official node type (None when unknown)."""
    return _ROLES.get(node_type) if isinstance(node_type, str) else None


def verl_row(*, data_source: str, prompt: Sequence[Mapping[str, Any]], gear: Mapping[str, Any], index: int, gear_as: str = "json",
             extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One VERL dataset row: ``data_source``, ``prompt``, ``ability``, ``reward_model`` and ``extra_info``.

    Args:
        data_source: VERL's reward routing key.
        prompt: the chat messages given to the policy.
        gear: the rubric spec for ``extra_info["gear"]``.
        index: the row's position (``extra_info["index"]``).
        gear_as: ``json`` (a JSON string: parquet-friendly) or ``dict``.
        extra: more ``extra_info`` fields.
    """
    return {
        "data_source": data_source,
        "prompt": [dict(m) for m in prompt],
        "ability": "rubric",
        "reward_model": {"style": "rubric", "ground_truth": ""},
        "extra_info": {
            "index": index,
            **(dict(extra) if extra else {}),
            "gear": stable_json(gear) if gear_as == "json" else dict(gear),
        },
    }


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file.

    Raises:
        RowError: a line that is not a JSON object (naming the line).
    """
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except ValueError as error:
                raise RowError((f"{path.name}:{number}",), f"not JSON ({error})") from None
            if not isinstance(value, dict):
                raise RowError((f"{path.name}:{number}",), "must be a JSON object")
            rows.append(value)
    return rows


def write_rows(rows: Iterable[Mapping[str, Any]], output: Path) -> int:
    """Writes rows as JSONL, or as parquet when ``output`` ends in ``.parquet`` (needs pyarrow).

    Returns:
        The number of rows written.

    Raises:
        RuntimeError: parquet was asked for and pyarrow is not installed.
    """
    materialized = list(rows)
    if output.suffix == ".parquet":
        try:
            import pyarrow as pa  # type: ignore[import-not-found, unused-ignore]
            import pyarrow.parquet as pq  # type: ignore[import-not-found, unused-ignore]
        except ImportError:
            raise RuntimeError("writing parquet needs pyarrow (pip install pyarrow); or write .jsonl") from None
        pq.write_table(pa.Table.from_pylist(materialized), str(output))
    else:
        with output.open("w", encoding="utf-8") as handle:
            for row in materialized:
                handle.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")
    return len(materialized)
