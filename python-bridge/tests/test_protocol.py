"""The Sans-I/O protocol: frames, ids, matching and error mapping, without any socket."""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gear_bridge import ClientProtocol, InvalidParams, LimitExceeded, MethodNotFound, RpcError, ServerError, ServerShuttingDown, UnknownRubric
from gear_bridge.protocol import error_from_wire, stable_json


def test_request_frames_lead_with_version_and_id() -> None:
    """Frames start with {"jsonrpc":"2.0","id":N, so the server can answer an oversized one by id."""
    protocol = ClientProtocol()
    first = protocol.build_request("server.info")
    second = protocol.build_request("rubric.score", {"scores": {"p": [0.5]}})
    assert first.frame.startswith(b'{"jsonrpc":"2.0","id":1,')
    assert second.frame.startswith(b'{"jsonrpc":"2.0","id":2,')
    assert json.loads(second.frame)["params"] == {"scores": {"p": [0.5]}}
    assert "params" not in json.loads(first.frame)
    assert protocol.pending == 2


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_are_refused_locally(bad: float) -> None:
    """NaN and Infinity raise InvalidParams naming the field, and nothing is sent or left pending."""
    protocol = ClientProtocol()
    with pytest.raises(InvalidParams) as caught:
        protocol.build_request("rubric.score", {"rubricId": "x", "scores": {"p": [0.1, bad]}})
    assert caught.value.code == -32602
    assert caught.value.path == ("scores", "p", 1)
    assert "scores.p[1]" in str(caught.value)
    assert protocol.pending == 0


def test_oversized_frames_are_refused_locally() -> None:
    """A frame over max_payload_bytes raises LimitExceeded with the limit, max and actual size."""
    protocol = ClientProtocol(max_payload_bytes=100)
    with pytest.raises(LimitExceeded) as caught:
        protocol.build_request("rubric.scoreBatch", {"items": [{"scores": {"p": [0.5] * 40}}]})
    assert caught.value.data["limit"] == "maxPayloadBytes"
    assert caught.value.data["max"] == 100
    assert caught.value.data["actual"] > 100
    assert protocol.pending == 0


def test_answers_are_matched_by_id_and_late_ones_dropped() -> None:
    """Results go to their own request; an answer to a forgotten or unknown id is dropped."""
    protocol = ClientProtocol()
    a = protocol.build_request("server.info")
    b = protocol.build_request("server.health")
    protocol.forget(a.id)
    replies = protocol.receive(json.dumps([
        {"jsonrpc": "2.0", "id": b.id, "result": {"status": "ok"}},
        {"jsonrpc": "2.0", "id": a.id, "result": {}},
        {"jsonrpc": "2.0", "id": 99, "result": {}},
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}},
    ]))
    assert [(r.id, r.method, r.unwrap()) for r in replies] == [(b.id, "server.health", {"status": "ok"})]
    assert protocol.pending == 0
    assert protocol.receive("not json") == []


@pytest.mark.parametrize(
    ("code", "cls"),
    [(-32700, ServerError), (-32600, ServerError), (-32601, MethodNotFound), (-32602, InvalidParams),
     (-32603, ServerError), (-32001, UnknownRubric), (-32002, LimitExceeded), (-32004, ServerShuttingDown), (-32099, RpcError)],
)
def test_error_codes_map_to_exceptions(code: int, cls: type) -> None:
    """Each JSON-RPC code of the service's error table maps to its exception, keeping code, message and data."""
    error = error_from_wire({"code": code, "message": "m", "data": {"path": ["a", 1]}}, "rubric.score")
    assert type(error) is cls
    assert (error.code, error.message, error.data, error.method) == (code, "m", {"path": ["a", 1]}, "rubric.score")
    assert error.path == ("a", 1)


def test_unknown_rubric_lists_ids_in_either_shape() -> None:
    """UnknownRubric.rubric_ids reads data.rubricId (rubric.score) and data.rubricIds (batches)."""
    assert error_from_wire({"code": -32001, "message": "", "data": {"rubricId": "sha256:a"}}).rubric_ids == ("sha256:a",)  # type: ignore[attr-defined]
    assert error_from_wire({"code": -32001, "message": "", "data": {"rubricIds": ["x", "y"]}}).rubric_ids == ("x", "y")  # type: ignore[attr-defined]


def test_stable_json_ignores_key_order() -> None:
    """Equal content gives equal text whatever the key order."""
    assert stable_json({"b": 1, "a": [1, {"d": 2, "c": 3}]}) == stable_json({"a": [1, {"c": 3, "d": 2}], "b": 1})


@given(st.permutations(list(range(12))), st.sets(st.integers(0, 11)))
def test_each_pending_request_is_answered_exactly_once(order: list, duplicated: set) -> None:
    """Whatever the order of answers and however many duplicates arrive, each request gets one reply."""
    protocol = ClientProtocol()
    requests = [protocol.build_request("server.health") for _ in range(12)]
    frames = [json.dumps({"jsonrpc": "2.0", "id": requests[i].id, "result": i}) for i in order]
    frames += [json.dumps({"jsonrpc": "2.0", "id": requests[i].id, "result": -1}) for i in sorted(duplicated)]
    replies = [reply for frame in frames for reply in protocol.receive(frame)]
    assert sorted((r.id, r.result) for r in replies) == [(req.id, i) for i, req in enumerate(requests)]
    assert protocol.pending == 0


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=64))
def test_float64_base64_round_trips_exactly(values: list) -> None:
    """Any finite float64 vector survives the float64-base64 encoding bit for bit."""
    from gear_bridge.protocol import decode_float64, encode_float64

    decoded = decode_float64(encode_float64(values))
    assert [v.hex() for v in decoded] == [float(v).hex() for v in values]


def test_float64_base64_refuses_bad_text() -> None:
    """Text that is not base64 of whole float64 values raises ValueError."""
    from gear_bridge.protocol import decode_float64

    for bad in ("not base64!", "AAAA"):
        with pytest.raises(ValueError):
            decode_float64(bad)
