"""A plain in-process Python implementation of GEAR's mean-field reward (paper eq. 12), the
baseline the bridge is measured against. Written independently of gear's TypeScript: official
GEAR rows (reward_model with rubrics and graph), relation retentions weak 0.6 / strong 0.2 /
activation 0, product over parents, reward = sum(w*q) / sum of positive weights.

Two ways a Python user would run it:
- ``gear_reward(reward_model, p_list)``: reads the graph on every call, as a VERL reward
  function that gets the row with each response does;
- ``compile_rubric(reward_model)`` once, then ``CompiledRubric.reward(p_list)`` per response.
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Sequence, Tuple

EDGE_TYPES = {"weak_prerequisite": 0.6, "strong_prerequisite": 0.2, "trigger": 0.0}


class CompiledRubric:
    """The rubric's DAG in topological order, with each criterion's (parent, retention) list."""

    def __init__(self, weights: List[float], order: List[int], parents: List[List[Tuple[int, float]]]) -> None:
        self.weights = weights
        self.order = order
        self.parents = parents
        positive = math.fsum(w for w in weights if w > 0)
        self.denominator = positive if positive > 0 else 1.0

    def effective(self, p: Sequence[float]) -> List[float]:
        q = [0.0] * len(p)
        for i in self.order:
            parents = self.parents[i]
            if not parents:
                q[i] = p[i]
                continue
            factors = sorted(q[j] + (1.0 - q[j]) * lam for j, lam in parents)
            product = 1.0
            for f in factors:
                product *= f
            q[i] = p[i] * product
        return q

    def reward(self, p: Sequence[float]) -> float:
        q = self.effective(p)
        return math.fsum(w * x for w, x in zip(self.weights, q)) / self.denominator


def _reaches(children: Mapping[int, List[int]], start: int, goal: int) -> bool:
    stack, seen = [start], {start}
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        for nxt in children.get(node, []):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


def compile_rubric(reward_model: Mapping[str, Any]) -> CompiledRubric:
    """Projects the graph to a DAG in edge order (self-loops, unknown ids, repeated pairs and
    cycle-closing edges dropped) and orders it topologically."""
    rubrics = reward_model["rubrics"]
    ids = [item.get("id") or f"r{k + 1}" for k, item in enumerate(rubrics)]
    index = {cid: k for k, cid in enumerate(ids)}
    weights = [float(item["points"]) for item in rubrics]
    parents: List[List[Tuple[int, float]]] = [[] for _ in rubrics]
    children: Dict[int, List[int]] = {}
    pairs = set()
    for edge in (reward_model.get("graph") or {}).get("edges", []):
        lam = EDGE_TYPES.get(edge.get("type"))
        a, b = index.get(edge.get("parent")), index.get(edge.get("child"))
        if lam is None or a is None or b is None or a == b or (a, b) in pairs or _reaches(children, b, a):
            continue
        pairs.add((a, b))
        parents[b].append((a, lam))
        children.setdefault(a, []).append(b)
    indegree = [len(ps) for ps in parents]
    ready = [k for k in range(len(rubrics)) if indegree[k] == 0]
    order: List[int] = []
    while ready:
        node = ready.pop()
        order.append(node)
        for child in children.get(node, []):
            indegree[child] -= 1
            if indegree[child] == 0:
                ready.append(child)
    return CompiledRubric(weights, order, parents)


def gear_reward(reward_model: Mapping[str, Any], p_list: Sequence[float]) -> float:
    """The reward of one response, reading the rubric and graph on the call."""
    return compile_rubric(reward_model).reward(p_list)
