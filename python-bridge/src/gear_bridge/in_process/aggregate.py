"""Effective scores and rewards of one response, in core's arithmetic (core/aggregators, core/reward).

Every operation is core's, in core's order, so the floats are the same: the mean-field product
``p_i * (q_j + (1 - q_j) * lambda)`` for one parent, the per-parent factors sorted ascending and
combined left to right for several (the geometric mean's root by core's ``v8Pow``), and the reward
as the correctly rounded sum (``math.fsum``, which core's exactSum reproduces) over the denominator.
Sums of floats are written as loops: ``sum()`` compensates since Python 3.12, where core adds left
to right.
"""

from __future__ import annotations

import math
from operator import mul
from typing import Sequence

from .layout import Layout
from .v8_pow import v8_pow

__all__ = ["gear_scores", "hard_scores", "reward"]


def gear_scores(layout: Layout, p: Sequence[float]) -> list[float]:
    """GEAR's topological mean-field update (core/aggregators/gear-mean-field.ts).

    A criterion without parents keeps p; the others are visited in topological order.
    """
    q = list(p)
    rule = layout.rule
    for i, edges in layout.steps:
        if len(edges) == 1:
            j, retention = edges[0]
            qj = q[j]
            q[i] = p[i] * (qj + (1 - qj) * retention)
        else:
            factors = sorted([q[j] + (1 - q[j]) * retention for j, retention in edges])
            if rule == "product" or rule == "geometric-mean":
                g = 1.0
                for f in factors:
                    g *= f
                if rule == "geometric-mean":
                    g = v8_pow(g, 1 / len(factors))
            elif rule == "arithmetic-mean":
                g = 0.0
                for f in factors:
                    g += f
                g = g / len(factors)
            else:  # max
                g = factors[-1]
            q[i] = p[i] * g
    return q


def hard_scores(layout: Layout, p: Sequence[float], d: Sequence[bool] | None) -> list[float]:
    """Hard gating: p_i when every parent's decision holds (d, else p >= 0.5), else 0 (core/aggregators/hard-gating.ts)."""
    q = list(p)
    if d is None:
        for i, parents in layout.gates:
            for j in parents:
                if not p[j] >= 0.5:
                    q[i] = 0.0
                    break
    else:
        for i, parents in layout.gates:
            for j in parents:
                if d[j] is not True:
                    q[i] = 0.0
                    break
    return q


def reward(layout: Layout, q: Sequence[float]) -> float:
    """S = sum w_i q_i / denominator (exact sum), optionally clipped (core/reward/reward.ts)."""
    if layout.denominator == 0:
        return 0.0
    value = math.fsum(map(mul, layout.weights, q)) / layout.denominator
    if layout.clip:
        value = min(1.0, max(0.0, value))
    return value + 0.0  # -0.0 as 0.0, as it reads after JSON
