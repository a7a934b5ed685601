"""HealthBench JSONL rows (``prompt``, ``rubrics: [{criterion, points, tags}]``, ``prompt_id``) ->
VERL rows whose ``extra_info["gear"]`` holds the rubric, with an optional annotated graph
(``graphs.jsonl``: ``{source_file, line, key, nodes, edges}``, ids ``r1..rK``).

Formats: ``ruscarl`` (default) and ``merf`` (HealthBench grader per criterion), ``gear`` (the official
GEAR batch judge), ``official-gear`` (judge scores against the official ``reward_model``) and
``canonical`` (judge scores against a canonical rubric).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..exceptions import RowError
from .rows_out import edge_relation, node_role, verl_row

__all__ = ["HEALTHBENCH_FORMATS", "healthbench_row", "official_tags"]

HEALTHBENCH_FORMATS = ("ruscarl", "merf", "gear", "official-gear", "canonical")


def official_tags(tags: Any) -> dict[str, str]:
    """HealthBench's ``["level:example", "axis:accuracy"]`` as the official GEAR dict ``{"level": "example", ...}``."""
    if isinstance(tags, Mapping):
        return {str(k): str(v) for k, v in tags.items()}
    out: dict[str, str] = {}
    for tag in tags or []:
        key, _, value = str(tag).partition(":")
        out[key] = value
    return out


def _graph(graph: Mapping[str, Any] | None, size: int, path: tuple[str | int, ...]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    if graph is None:
        return [], []
    nodes = [{"id": str(n["id"]), "node_type": str(n["node_type"])} for n in graph.get("nodes", [])]
    edges = []
    for index, edge in enumerate(graph.get("edges", [])):
        edge_relation(edge.get("type"), (*path, "edges", index, "type"))
        edges.append({"parent": str(edge["parent"]), "child": str(edge["child"]), "type": str(edge["type"])})
    return nodes, edges


def healthbench_row(record: Mapping[str, Any], *, index: int, graph: Mapping[str, Any] | None = None, format: str = "ruscarl",
                    data_source: str = "healthbench", gear_as: str = "json") -> dict[str, Any]:
    """One HealthBench record as a VERL row.

    Args:
        record: the HealthBench JSONL object.
        index: its position in the dataset.
        graph: its annotated graph (``nodes``, ``edges`` with ids ``r1..rK``), if any.
        format: one of :data:`HEALTHBENCH_FORMATS`.
        data_source: the rows' ``data_source``.
        gear_as: ``json`` or ``dict`` for ``extra_info["gear"]``.

    Raises:
        RowError: the record is malformed (naming the field).
    """
    where: tuple[str | int, ...] = (index,)
    if format not in HEALTHBENCH_FORMATS:
        raise RowError(("format",), f"must be one of {', '.join(HEALTHBENCH_FORMATS)}, got {format!r}")
    prompt = record.get("prompt")
    if not isinstance(prompt, list) or not all(isinstance(m, Mapping) for m in prompt):
        raise RowError((*where, "prompt"), "must be a list of chat messages {role, content}")
    rubrics = record.get("rubrics")
    if not isinstance(rubrics, list) or not rubrics:
        raise RowError((*where, "rubrics"), "must be a non-empty list of {criterion, points, tags}")
    for position, item in enumerate(rubrics):
        if not isinstance(item, Mapping) or not isinstance(item.get("criterion"), str):
            raise RowError((*where, "rubrics", position, "criterion"), "must be a string")
        points = item.get("points")
        if isinstance(points, bool) or not isinstance(points, (int, float)):
            raise RowError((*where, "rubrics", position, "points"), f"must be a number, got {points!r}")
    nodes, edges = _graph(graph, len(rubrics), ("graph",))
    messages: Sequence[Mapping[str, Any]] = [{"role": m["role"], "content": m["content"]} for m in prompt]
    gear: dict[str, Any]
    if format in ("ruscarl", "merf"):
        reward_model: dict[str, Any] = {
            "rubrics": [{"criterion": r["criterion"], "points": r["points"], "tags": list(r.get("tags") or [])} for r in rubrics]
        }
        if edges:
            reward_model["graph"] = {"edges": edges}
        gear = {"format": format, "row": {"prompt": messages, "reward_model": reward_model}}
    elif format in ("gear", "official-gear"):
        official = {
            "rubrics": [
                {"id": f"r{i + 1}", "criterion": r["criterion"], "points": r["points"], "tags": official_tags(r.get("tags"))}
                for i, r in enumerate(rubrics)
            ],
            "graph": {"nodes": nodes, "edges": edges},
        }
        gear = (
            {"format": "gear", "row": {"prompt": messages, "reward_model": official}}
            if format == "gear"
            else {"format": "official-gear", "reward_model": official}
        )
    else:
        roles = {n["id"]: node_role(n["node_type"]) for n in nodes}
        criteria = []
        for i, r in enumerate(rubrics):
            criterion: dict[str, Any] = {"id": f"r{i + 1}", "text": r["criterion"], "weight": r["points"]}
            role = roles.get(f"r{i + 1}")
            if role is not None:
                criterion["role"] = role
            criteria.append(criterion)
        canonical_edges = [
            {"parent": e["parent"], "child": e["child"], "relation": edge_relation(e["type"], ("graph", "edges", k, "type"))}
            for k, e in enumerate(edges)
        ]
        gear = {"format": "canonical", "rubric": {"criteria": criteria, "edges": canonical_edges}}
    extra = {"prompt_id": record["prompt_id"]} if isinstance(record.get("prompt_id"), str) else None
    return verl_row(data_source=data_source, prompt=messages, gear=gear, index=index, gear_as=gear_as, extra=extra)
