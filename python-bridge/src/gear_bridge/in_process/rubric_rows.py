"""A row's rubric read as the service reads it, for in-process scoring.

Canonical rubrics (core/model/rubric.ts), official GEAR ``reward_model``s
(core/formats/official-gear.ts), official GEAR host rows (adapters/official-gear/format.ts, and
WritingBench / PLawBench rows, adapters/scored/format.ts), RuscaRL / MeRF rows
(adapters/ruscarl/format.ts) and RaR rows (host ``rar-explicit``, adapters/rar-explicit/format.ts)
become one :class:`RubricParts`. Each reader returns None for anything the service would refuse or
read in a way not reproduced here (a numeric-string weight other than a plain decimal, an unknown
node or edge type, a ``null`` where a field must be absent, a rubric over the service's default
limits): those rows go to the service, which scores them or names the bad field. So nothing is
scored here that the service would refuse.
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple, Sequence

from .json_reading import JS_SPACE

__all__ = ["RubricParts", "Edge", "ROLES", "RELATIONS", "retention_override", "read_canonical", "read_official", "read_gear_row", "read_scored_row", "read_ruscarl", "read_rar", "MAX_CRITERIA", "MAX_EDGES", "FLOAT_INT_LIMIT"]

#: The service's default limits (python-bridge/service/limits.ts): a larger rubric is its to refuse.
MAX_CRITERIA = 512
MAX_EDGES = 4096

#: A canonical criterion's roles, and an edge's relations (RubricSchema's).
ROLES = ("foundation", "bonus", "penalty", "activation")
RELATIONS = ("weak", "strong", "activation")
_NODE_TYPE_TO_ROLE = {"foundation": "foundation", "bonus": "bonus", "penalty": "penalty", "trigger": "activation"}
_EDGE_TYPE_TO_RELATION = {"weak_prerequisite": "weak", "strong_prerequisite": "strong", "trigger": "activation"}
_CHAT_ROLES = ("system", "user", "assistant")
#: A RaR item's category, the prefix of its description. The host matches ``^\s*`` in JavaScript,
#: whose whitespace includes these four: a description this matches, the host reads alike.
_RAR_CATEGORY = re.compile("[ \t\n\r]*(Essential|Important|Optional|Pitfall) Criteria:")
#: RaR-Explicit's categorical weights, the host's default revision (v1, adapters/rar-explicit/categories.ts).
RAR_WEIGHTS = {"Essential": 1.0, "Important": 0.7, "Optional": 0.3, "Pitfall": 0.8}


#: An edge as read: (parent id, child id, relation, retention override or None).
Edge = tuple[str, str, str, "float | None"]


class RubricParts(NamedTuple):
    """A rubric's criteria (ids and weights in input order) and its edges, as the service reads them.

    Texts and roles ('' for none) decide no score: exact inference's visiting order breaks its ties
    by them (core/compile/canonical-rank.ts), so that order does not depend on ids or input order.
    """

    ids: tuple[str, ...]
    weights: tuple[float, ...]
    edges: tuple[Edge, ...]
    texts: tuple[str, ...]
    roles: tuple[str, ...]


_ABSENT = object()
#: The largest integer float64 holds exactly (with all below it): integer weights within it read exactly.
FLOAT_INT_LIMIT = 2**53


def _finite_number(value: Any) -> float | None:
    """A JSON number as float64, or None (booleans, non-numbers, and ints past float64's range)."""
    kind = type(value)
    if kind is float:
        return value if value - value == 0 else None  # inf - inf and nan - nan are nan
    if kind is int:
        if -FLOAT_INT_LIMIT <= value <= FLOAT_INT_LIMIT:
            return float(value)
        try:
            number = float(value)
        except OverflowError:
            return None
        return number if math.isfinite(number) else None
    return None


def retention_override(value: Any) -> float | None:
    """An edge's own retention as float64 in [0, 1], or None (not a number, non-finite, out of range)."""
    number = _finite_number(value)
    return number if number is not None and 0 <= number <= 1 else None


def read_canonical(rubric: Any) -> RubricParts | None:
    """RubricSchema: strict objects, at least one criterion, edges absent or a list."""
    if type(rubric) is not dict:
        return None
    criteria = rubric.get("criteria")
    edges = rubric.get("edges", _ABSENT)
    if len(rubric) != (1 if edges is _ABSENT else 2):
        return None  # criteria missing, or a field RubricSchema does not have
    if edges is _ABSENT:
        edges = []
    if type(criteria) is not list or not criteria or type(edges) is not list:
        return None
    if len(criteria) > MAX_CRITERIA or len(edges) > MAX_EDGES:
        return None
    ids: list[str] = []
    weights: list[float] = []
    texts: list[str] = []
    roles: list[str] = []
    for item in criteria:
        if type(item) is not dict:
            return None
        role = item.get("role", _ABSENT)
        # id, text and weight present (None fails their checks below), and no other field.
        if len(item) != (3 if role is _ABSENT else 4) or role is not _ABSENT and role not in ROLES:
            return None
        criterion_id = item.get("id")
        weight: Any = item.get("weight")
        kind = type(weight)
        # The usual weights first, inline: ints float64 holds exactly, finite floats.
        if kind is int and -FLOAT_INT_LIMIT <= weight <= FLOAT_INT_LIMIT:
            weight = float(weight)
        elif kind is not float or weight - weight != 0:
            weight = _finite_number(weight)
            if weight is None:
                return None
        text = item.get("text")
        if type(criterion_id) is not str or not criterion_id or type(text) is not str:
            return None
        ids.append(criterion_id)
        weights.append(weight)
        texts.append(text)
        roles.append("" if role is _ABSENT else role)
    read_edges: list[Edge] = []
    for edge in edges:
        if type(edge) is not dict:
            return None
        retention: Any = edge.get("retention", _ABSENT)
        parent = edge.get("parent")
        child = edge.get("child")
        relation = edge.get("relation")
        if len(edge) != (3 if retention is _ABSENT else 4) or type(parent) is not str or not parent or type(child) is not str or not child:
            return None
        if relation not in RELATIONS:
            return None
        if retention is _ABSENT:
            retention = None
        else:
            retention = retention_override(retention)
            if retention is None:
                return None
        read_edges.append((parent, child, relation, retention))
    return RubricParts(tuple(ids), tuple(weights), tuple(read_edges), tuple(texts), tuple(roles))


def _js_truthy(value: Any) -> bool:
    """JavaScript truthiness of a JSON value (an empty list or object is truthy there)."""
    if value is None or value is False or value == "":
        return False
    if type(value) in (int, float):
        return bool(value == value and value != 0)
    return True


def _official(points: list[float], texts: list[str], declared_ids: list[Any] | None, tags: list[Any] | None,
              graph: Any) -> RubricParts | None:
    """readOfficialRewardModel on rubric items already read (their points and criterion texts, and
    their ``id`` and ``tags`` fields unless RuscaRL's, which carry neither), with the graph as given."""
    if graph is not None:
        if type(graph) is not dict:
            return None
        for field in ("nodes", "edges"):
            if graph.get(field) is not None and type(graph[field]) is not list:
                return None
    nodes = (graph or {}).get("nodes") or []
    raw_edges = (graph or {}).get("edges") or []
    if len(points) > MAX_CRITERIA or len(raw_edges) > MAX_EDGES:
        return None
    node_type: dict[str, Any] = {}
    for node in nodes:
        if type(node) is dict:
            node_id = node.get("id")
            if type(node_id) is str and node_id:
                node_type[node_id] = node.get("node_type")
    ids: list[str] = []
    roles: list[str] = []
    for index in range(len(points)):
        item_id = declared_ids[index] if declared_ids is not None else None
        criterion_id = item_id if type(item_id) is str and item_id else f"r{index + 1}"
        # The role: `nodeType.get(id) || tags.node_type`, else the sign. It decides no score, but a
        # type the service does not know may be an Object.prototype name it reads as a bad role.
        declared = node_type.get(criterion_id)
        if not _js_truthy(declared):
            item_tags = tags[index] if tags is not None else None
            declared = item_tags.get("node_type") if type(item_tags) is dict else None
        if type(declared) is str:
            role = _NODE_TYPE_TO_ROLE.get(declared)
            if role is None:
                return None
        else:
            role = "penalty" if points[index] < 0 else "foundation"
        ids.append(criterion_id)
        roles.append(role)
    edges: list[Edge] = []
    for raw in raw_edges:
        if type(raw) is not dict:
            continue  # dropped by the service as malformed
        parent, child, kind = raw.get("parent"), raw.get("child"), raw.get("type")
        if type(parent) is not str or not parent or type(child) is not str or not child or type(kind) is not str:
            continue  # malformed, or an unknown relation: dropped; nothing else depends on it
        relation = _EDGE_TYPE_TO_RELATION.get(kind)
        if relation is None:
            return None  # an unknown type (or an Object.prototype name the service reads strangely)
        edges.append((parent, child, relation, None))
    return RubricParts(tuple(ids), tuple(points), tuple(edges), tuple(texts), tuple(roles))


#: Numeric strings read here: plain decimals, which JavaScript's Number() and Python's float()
#: both round correctly (the service's PointsSchema takes more: signs, exponents, whitespace).
_DECIMAL = re.compile("[0-9]+(?:[.][0-9]+)?")


def _points(rubrics: Any, numeric_strings: bool = False) -> tuple[list[float], list[str]] | None:
    """The points and criterion texts of rubric items (at least one), each with a string criterion
    and a number of points. RuscaRL's reader takes numbers only; the official one also numeric
    strings (``numeric_strings``): plain decimals are read here, other ones left to the service (None)."""
    if type(rubrics) is not list or not rubrics:
        return None
    points: list[float] = []
    texts: list[str] = []
    for item in rubrics:
        if type(item) is not dict:
            return None
        text = item.get("criterion")
        given = item.get("points")
        value: float | None
        if numeric_strings and type(given) is str and _DECIMAL.fullmatch(given) is not None:
            value = float(given)
            if not math.isfinite(value):
                return None  # the service refuses a string that overflows float64
        else:
            value = _finite_number(given)
        if type(text) is not str or value is None:
            return None
        points.append(value)
        texts.append(text)
    return points, texts


def read_official(reward_model: Any) -> RubricParts | None:
    """OfficialRewardModelSchema and readOfficialRewardModel (loose objects; ids r1..rK by default)."""
    if type(reward_model) is not dict:
        return None
    rubrics: Any = reward_model.get("rubrics")
    read = _points(rubrics, numeric_strings=True)  # also checks that rubrics is a list of objects
    if read is None:
        return None
    return _official(*read, [item.get("id") for item in rubrics], [item.get("tags") for item in rubrics], reward_model.get("graph"))


def _conversation(prompt: Any) -> bool:
    """ConversationSchema: at least one message, each with a chat role and string content."""
    if type(prompt) is not list or not prompt:
        return False
    for message in prompt:
        if type(message) is not dict or message.get("role") not in _CHAT_ROLES or type(message.get("content")) is not str:
            return False
    return True


def read_gear_row(row: Any) -> tuple[RubricParts, tuple[int, ...] | None] | None:
    """An official GEAR host row (host ``gear``) and the positions its judge answers (None: all):
    a rule-verified item (adapters/official-gear/format.ts ``isRuleVerified``: ``tags.verifier`` is
    "rule" and ``tags.function`` truthy, list tags "key:value" read as the official code reads them)
    is not judged; gear does not run rule functions, so it counts against the response. A row
    whose every item is rule-verified asks no judge: left to the service."""
    parts = _official_row(row)
    if parts is None:
        return None
    items = row["reward_model"]["rubrics"]
    judged = tuple([k for k, item in enumerate(items) if not _rule_verified(item)])
    if not judged:
        return None
    return parts, None if len(judged) == len(items) else judged


def _official_row(row: Any) -> RubricParts | None:
    if type(row) is not dict or not _conversation(row.get("prompt")):
        return None
    return read_official(row.get("reward_model"))


def _rule_verified(item: Any) -> bool:
    """isRuleVerified: tags.verifier == "rule" and a truthy tags.function."""
    if type(item) is not dict:
        return False
    tags = item.get("tags")
    found: dict[str, Any] = {}
    if type(tags) is list:
        for tag in tags:
            if type(tag) is str:
                key, colon, value = tag.partition(":")
                found[key] = value if colon else True
    elif type(tags) is dict:
        found = tags
    function = found.get("function")
    # JavaScript's Boolean(): NaN is false, where Python's bool() is true.
    truthy = bool(function) and not (type(function) is float and function != function)
    return type(found.get("verifier")) is str and found["verifier"] == "rule" and truthy


def read_scored_row(row: Any, host: str) -> tuple[RubricParts, tuple[bool, ...], tuple[int, ...] | None] | None:
    """A WritingBench or PLawBench row (an official GEAR row), whether each item is scored on the
    1-10 scale (else in partial points), and the positions its judge answers (None: all), as
    adapters/scored/format.ts reads it: an item's ``tags.score_type`` where it names one, else the
    host's (WritingBench 1-10, PLawBench partial points); a rule-verified item is not judged, as in
    :func:`read_gear_row`. Left to the service: a ``score_type`` that is no string (it refuses it),
    an item in partial points without positive points (it refuses it), a PLawBench row with a
    criterion without positive points (its native reward is not the official flat one there), and a
    row whose every item is rule-verified."""
    read = read_gear_row(row)
    if read is None:
        return None
    parts, judged = read
    scales: list[bool] = []
    for item, weight in zip(row["reward_model"]["rubrics"], parts.weights):
        scale = _on_scale(item, host)
        if scale is None or not scale and not weight > 0:
            return None
        scales.append(scale)
    if host == "plawbench" and not all(w > 0 for w in parts.weights):
        return None
    return parts, tuple(scales), judged


def _on_scale(item: Any, host: str) -> bool | None:
    """scoreTypeOf: whether the item is scored on the 1-10 scale, or None where the service refuses
    its score_type. (Lowering maps no character outside ASCII into either name, in Python as in
    JavaScript.)"""
    tags = item.get("tags") if type(item) is dict else None
    declared = tags.get("score_type") if type(tags) is dict else None
    if declared is not None and type(declared) is not str:
        return None
    name = declared.strip(JS_SPACE).lower() if declared is not None else ""
    if name == "scale_1_10" or name == "partial_points":
        return name == "scale_1_10"
    return host == "writingbench"


def read_ruscarl(row: Any) -> RubricParts | None:
    """RuscarlRowSchema (a conversation and reward_model.rubrics), ids r1..rK, roles from the graph's nodes only."""
    if type(row) is not dict or not _conversation(row.get("prompt")):
        return None
    reward_model = row.get("reward_model")
    if type(reward_model) is not dict:
        return None
    read = _points(reward_model.get("rubrics"))
    if read is None:
        return None
    return _official(*read, None, None, reward_model.get("graph"))


def read_rar(row: Any) -> RubricParts | None:
    """RarRowSchema (a ``question`` or a ``prompt`` conversation, ``rubric`` items with a string
    title and description and an optional numeric weight, loose objects) and its rubric: each
    item's points are its category's weight (the numeric ``weight`` is not RaR-Explicit's), ids
    r1..rK, the ``graph`` read as an official one."""
    if type(row) is not dict:
        return None
    question = row.get("question", _ABSENT)
    prompt = row.get("prompt", _ABSENT)
    if question is _ABSENT and prompt is _ABSENT:
        return None
    if question is not _ABSENT and type(question) is not str or prompt is not _ABSENT and not _conversation(prompt):
        return None
    rubric = row.get("rubric")
    if type(rubric) is not list or not rubric:
        return None
    points: list[float] = []
    texts: list[str] = []
    for item in rubric:
        if type(item) is not dict:
            return None
        description = item.get("description")
        weight = item.get("weight", _ABSENT)
        if type(item.get("title")) is not str or type(description) is not str or weight is not _ABSENT and _finite_number(weight) is None:
            return None
        category = _RAR_CATEGORY.match(description)
        if category is None:
            return None  # the service refuses it, or reads a prefix only JavaScript calls whitespace
        points.append(RAR_WEIGHTS[category.group(1)])
        texts.append(description)
    return _official(points, texts, None, None, row.get("graph"))
