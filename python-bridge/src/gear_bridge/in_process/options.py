"""Aggregation options as the service resolves them (core/model/options.ts), for in-process scoring.

Every option the service takes is taken here: any ``gamma`` (the service raises retentions to it,
and takes the geometric mean's root, with core's ``v8Pow``, which :mod:`.v8_pow` reproduces bit for
bit) and every ``multiParentRule``. Anything else, malformed options included, is left to the
service (None), which names the bad field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Mapping

from .rubric_rows import RELATIONS

__all__ = ["LocalOptions", "resolve_options", "host_options", "gear_host_options", "zero_reward_options"]

_DEFAULT_RETENTION = {"weak": 0.6, "strong": 0.2, "activation": 0.0}
_KEYS = frozenset({"retention", "sharedRetention", "gamma", "multiParentRule", "normalize", "emptyDenominator", "clip",
                   "onInvalidEdge", "exactMaxWidth", "autoExactMaxCost"})
_RULES = ("product", "geometric-mean", "arithmetic-mean", "max")
_MAX_SAFE_INTEGER = 2**53 - 1


@dataclass(frozen=True)
class LocalOptions:
    """Resolved options (defaults filled), restricted to what in-process scoring reproduces exactly."""

    retention: Mapping[str, float]
    shared_retention: float | None
    gamma: float
    multi_parent_rule: str
    normalize: str
    empty_denominator: str
    clip: bool
    on_invalid_edge: str
    #: Read by exact inference (gear-exact, auto): the widest table it builds (2^width cells) and
    #: the plan cost up to which auto takes it.
    exact_max_width: int = 20
    auto_exact_max_cost: float = 4096


def _number(value: Any) -> bool:
    """A finite float64, as the service reads the number: an integer past float64's range is its
    Infinity (and Python's float() of it raises)."""
    if type(value) is int:
        try:
            return math.isfinite(float(value))
        except OverflowError:
            return False
    return type(value) is float and math.isfinite(value)


def _retention(value: Any) -> float | None:
    if not _number(value) or not 0 <= value <= 1:
        return None
    return float(value)


def _integer(value: Any, low: int, high: float) -> bool:
    return type(value) is int and low <= value <= high or (type(value) is float and value.is_integer() and low <= value <= high)


def resolve_options(options: Mapping[str, Any] | None) -> LocalOptions | None:
    """The options with the service's defaults, or None when the service must take them."""
    given = dict(options or {})
    if not given.keys() <= _KEYS:
        return None
    retention = dict(_DEFAULT_RETENTION)
    if "retention" in given:
        by_relation = given["retention"]
        if type(by_relation) is not dict or not by_relation.keys() <= set(RELATIONS):
            return None
        for relation, value in by_relation.items():
            read = _retention(value)
            if read is None:
                return None
            retention[relation] = read
    shared = None
    if "sharedRetention" in given:
        shared = _retention(given["sharedRetention"])
        if shared is None:
            return None
    gamma = given.get("gamma", 1)
    if not _number(gamma) or not gamma >= 0:
        return None
    rule = given.get("multiParentRule", "product")
    normalize = given.get("normalize", "positive-sum")
    empty = given.get("emptyDenominator", "divide-by-one")
    clip = given.get("clip", False)
    invalid_edge = given.get("onInvalidEdge", "drop")
    if (rule not in _RULES or normalize not in ("positive-sum", "abs-sum") or empty not in ("divide-by-one", "zero-reward")
            or type(clip) is not bool or invalid_edge not in ("drop", "reject")):
        return None
    width = given.get("exactMaxWidth", 20)
    cost = given.get("autoExactMaxCost", 4096)
    if not _integer(width, 1, 24) or not _integer(cost, 0, _MAX_SAFE_INTEGER):
        return None  # zod's int() takes at most Number.MAX_SAFE_INTEGER
    return LocalOptions(retention, shared, float(gamma), rule, normalize, empty, clip, invalid_edge, int(width), float(cost))


def gear_host_options(options: LocalOptions) -> LocalOptions:
    """The official GEAR host's options: its normalization over the user's (adapters/official-gear/format.ts)."""
    return replace(options, normalize="positive-sum", empty_denominator="divide-by-one")


def host_options(options: LocalOptions) -> LocalOptions:
    """RuscaRL's and MeRF's options: the host's normalization over the user's (adapters/ruscarl/format.ts)."""
    return replace(options, normalize="positive-sum", empty_denominator="zero-reward", clip=False)


def zero_reward_options(options: LocalOptions) -> LocalOptions:
    """RaR-Explicit's and PLawBench's options: the host's normalization over the user's, the user's
    clip (adapters/rar-explicit/format.ts, adapters/scored/format.ts)."""
    return replace(options, normalize="positive-sum", empty_denominator="zero-reward")
