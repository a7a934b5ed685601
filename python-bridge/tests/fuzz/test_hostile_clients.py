"""Issue 10 from Python: a hostile client on a raw WebSocket against a real `gear serve` (hypothesis).

Values anywhere in the params of every method (objects where numbers belong, numbers float64 cannot
hold, 20,000-deep nesting, extreme weights) never get -32603 and never a non-finite reward; a
notification never gets an answer; an id comes back exactly as sent or is refused with -32600; the
Bearer scheme is case-insensitive; and the server keeps serving throughout.
"""
from __future__ import annotations

import json
import math
from typing import Any, Dict, Iterator, List, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

from conftest import start_server

PLACEHOLDER = '"@@hostile@@"'
CANONICAL = {
    "criteria": [{"id": "a", "text": "A", "weight": 2}, {"id": "b", "text": "B", "weight": -1}],
    "edges": [{"parent": "a", "child": "b", "relation": "strong"}],
}
OFFICIAL = {
    "rubrics": [{"id": "r1", "criterion": "States the fact.", "points": 5, "tags": {}}, {"id": "r2", "criterion": "Explains it.", "points": 3, "tags": {}}],
    "graph": {"nodes": [], "edges": [{"parent": "r1", "child": "r2", "type": "weak_prerequisite"}]},
}
ROW = {"prompt": [{"role": "user", "content": "Is 3.9 mmol/L normal?"}], "reward_model": OFFICIAL}
SKELETONS: List[Tuple[str, Dict[str, Any]]] = [
    ("rubric.register", {"rubric": CANONICAL}),
    ("rubric.register", {"reward_model": OFFICIAL}),
    ("rubric.score", {"rubric": CANONICAL, "scores": {"p": [0.5, 1.0], "d": [True, False]}, "aggregator": "gear-exact"}),
    ("rubric.scoreBatch", {"items": [{"reward_model": OFFICIAL, "scores": {"p": [1.0, 0.25]}}], "aggregator": "auto"}),
    ("diagnostics.fcp", {"items": [{"rubric": CANONICAL, "scores": {"p": [0.1, 0.9]}}]}),
    ("host.score", {"host": "gear", "row": ROW, "response": "Yes.", "judgeOutputs": ['{"1": {"score": 1}, "2": {"score": 0}}']}),
    ("host.requests", {"host": "ruscarl", "row": {"prompt": ROW["prompt"], "reward_model": {"rubrics": [{"criterion": "x", "points": 1, "tags": []}]}}, "response": "r"}),
]
ANSWERED_ERRORS = {-32602, -32002, -32001, -32601, -32600}


def paths_of(value: Any, prefix: Tuple[Any, ...] = ()) -> List[Tuple[Any, ...]]:
    out: List[Tuple[Any, ...]] = []
    items = list(enumerate(value)) if isinstance(value, list) else list(value.items()) if isinstance(value, dict) else []
    for key, child in items:
        out.append(prefix + (key,))
        out.extend(paths_of(child, prefix + (key,)))
    return out


def with_placeholder(value: Any, path: Tuple[Any, ...]) -> Any:
    copy = json.loads(json.dumps(value))
    at = copy
    for key in path[:-1]:
        at = at[key]
    at[path[-1]] = "@@hostile@@"
    return copy


hostile_text = st.one_of(
    st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
                 lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8).map(json.dumps),
    st.sampled_from(['{"toString":1}', '[{"toString":1}]', "1e400", "-1e400", "1e-400", "5e-324", "-1", "9007199254740993", "1.7976931348623157e308", '"1e400"']),
    st.integers(min_value=65, max_value=20_000).map(lambda n: "[" * n + "]" * n),
    st.integers(min_value=65, max_value=3_000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.integers(min_value=2**53, max_value=2**90).map(str),
)


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    running = start_server()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def ws(server: Any) -> Iterator[ClientConnection]:
    with connect(server.url, max_size=None) as connection:
        yield connection


def call(ws: ClientConnection, text: str) -> Dict[str, Any]:
    ws.send(text)
    reply: Dict[str, Any] = json.loads(ws.recv(timeout=30))
    return reply


FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@FUZZ
@given(which=st.integers(min_value=0, max_value=len(SKELETONS) - 1), pick=st.integers(min_value=0, max_value=10_000), hostile=hostile_text)
def test_hostile_values_anywhere_never_give_internal_errors(ws: ClientConnection, which: int, pick: int, hostile: str) -> None:
    method, params = SKELETONS[which]
    paths = paths_of(params)
    path = paths[pick % len(paths)]
    text = json.dumps({"jsonrpc": "2.0", "id": "fuzz", "method": method, "params": with_placeholder(params, path)}).replace(PLACEHOLDER, hostile)
    reply = call(ws, text)
    assert reply["id"] == "fuzz"
    if "error" in reply:
        assert reply["error"]["code"] in ANSWERED_ERRORS, (method, path, hostile[:80], reply["error"])
    for key in ("reward", "flat", "nativeReward"):
        found = reply.get("result", {}).get(key) if isinstance(reply.get("result"), dict) else None
        if found is not None or (isinstance(reply.get("result"), dict) and key in reply["result"]):
            assert isinstance(found, (int, float)) and math.isfinite(found), (method, path, hostile[:80], reply)


def test_the_issue_examples_name_the_field(ws: ClientConnection) -> None:
    """The figures of items 6, 7 and 14: each a -32603 or a blow-up before."""
    def score(params: Dict[str, Any]) -> Dict[str, Any]:
        return call(ws, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "rubric.score", "params": params}))

    assert score({"rubric": CANONICAL, "scores": {"p": [{"toString": 1}, 0.5]}})["error"]["data"]["path"] == ["scores", "p", 0]
    tiny = {"criteria": [{"id": "a", "text": "A", "weight": 5e-324}, {"id": "b", "text": "B", "weight": -1}]}
    assert score({"rubric": tiny, "scores": {"p": [1, 1]}})["error"]["data"]["path"] == ["rubric", "criteria"]
    huge = {"rubrics": [{"criterion": "a", "points": "1e400"}, {"criterion": "b", "points": 1}]}
    assert score({"reward_model": huge, "scores": {"p": [1, 0]}})["error"]["data"]["path"] == ["reward_model", "rubrics", 0, "points"]
    deep = '{"jsonrpc":"2.0","id":2,"method":"rubric.score","params":{"rubric":' + json.dumps(CANONICAL) + ',"scores":{"p":[' + "[" * 20_000 + "]" * 20_000 + ",0.5]}}}"
    reply = call(ws, deep)
    assert reply["error"]["code"] == -32602 and reply["error"]["data"]["path"][:3] == ["scores", "p", 0]


@FUZZ
@given(notifications=st.lists(st.tuples(st.sampled_from(["no.such", "rubric.score", "server.info", ""]), st.none() | st.dictionaries(st.text(max_size=4), st.integers())), min_size=1, max_size=8))
def test_notifications_are_never_answered(ws: ClientConnection, notifications: List[Tuple[str, Any]]) -> None:
    for method, params in notifications:
        ws.send(json.dumps({"jsonrpc": "2.0", "method": method, **({} if params is None else {"params": params})}))
    # The next answer on this socket is the fence's: nothing came for the notifications.
    assert call(ws, '{"jsonrpc":"2.0","id":"fence","method":"server.health"}')["id"] == "fence"


@FUZZ
@given(request_id=st.one_of(st.integers(min_value=-(2**90), max_value=2**90), st.text(max_size=30), st.none()))
def test_ids_come_back_exactly_or_are_refused(ws: ClientConnection, request_id: Any) -> None:
    reply = call(ws, json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "server.info"}))
    if isinstance(request_id, int) and abs(request_id) > 2**53 - 1:
        assert reply["id"] is None and reply["error"]["code"] == -32600
    else:
        # Python's json reads integers exactly: the id must be the very same value.
        assert reply["id"] == request_id and type(reply["id"]) is type(request_id)
        assert "result" in reply


def test_bearer_scheme_is_case_insensitive_and_wrong_tokens_of_any_length_are_refused() -> None:
    token = "correct-horse-battery-staple"
    guarded = start_server(token=token)
    try:
        for scheme in ("Bearer", "bearer", "BEARER", "bEaReR"):
            with connect(guarded.url, additional_headers={"Authorization": f"{scheme} {token}"}) as ok:
                ok.send('{"jsonrpc":"2.0","id":1,"method":"server.health"}')
                assert json.loads(ok.recv(timeout=10))["result"]["status"] == "ok"
        for wrong in ("x", token[:-1], token + "x", token.upper(), "y" * 200):
            with pytest.raises(InvalidStatus) as refused:
                connect(guarded.url, additional_headers={"Authorization": f"Bearer {wrong}"})
            assert refused.value.response.status_code == 401
    finally:
        guarded.stop()
